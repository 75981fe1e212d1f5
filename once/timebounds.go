package once

import (
	"errors"
	"time"
	"unsafe"

	"github.com/once-go/once/nonce"
)

// ErrTimeRange: an instant outside the range the 42-bit timestamp of an ID
// can hold (from the default epoch, 2025-01-01T00:00:00Z, for 2^42 ms, to
// 2164-05-15T07:35:11.104Z), or a time range that is empty or that the
// type's database order cannot express.
var ErrTimeRange = errors.New("once: time outside the range of IDs")

// Layout of the stored value of counter and sortable IDs (see the nonce
// package): 42 bits of milliseconds since the epoch, 9 of machine ID, 13 of
// counter.
const (
	tsShift  = 22
	lowMask  = 1<<tsShift - 1 // machine ID and counter
	maxMilli = 1<<42 - 1      // the last millisecond of the range
	epochMs  = nonce.DefaultEpochUnixMilli
	signBit  = 1 << 63
)

// TimeOf returns the timestamp of id, in UTC: the millisecond its nonce
// carries, counted from the default epoch ([nonce.DefaultEpoch]). For a
// type with Sortable nonces that is when the ID was made (truncated to the
// millisecond). The timestamp of a Counter ID lags the time it was made: it
// is the counter's high part, which starts at the time its factory (or its
// current lease) started and runs ahead by one millisecond for every 8,192
// IDs, never past the clock; it is no earlier than the process start and
// no later than creation. Encrypted IDs carry no readable timestamp: their
// types get an [ErrConfig] error, and so does a type whose bound factory
// uses another epoch. The zero ID is an [ErrInvalid] error.
func TimeOf[T IDType](id T) (time.Time, error) {
	if err := timeCheck(typeKey[T]()); err != nil {
		return time.Time{}, err
	}
	v := struct{ v uint64 }(id).v
	if v == 0 {
		return time.Time{}, &idError{kind: ErrInvalid, msg: "once: the zero ID has no time"}
	}
	return time.UnixMilli(epochMs + int64(v>>tsShift)).UTC(), nil
}

// MinID returns the lowest ID of type T whose timestamp ([TimeOf]) is at or
// after t: the first ID of t's millisecond when t falls on a millisecond,
// else of the next one. For every non-zero id of T,
//
//	MinID(t) <= id  exactly when  !TimeOf(id).Before(t)
//
// comparing stored values as uint64 (Uint64). It is the Go twin of the SQL
// function once_min_id, except at the epoch itself, where MinID returns the
// value 1 instead of 0 (0 is the zero ID, which has no database value).
// An instant outside the 42-bit range (before the default epoch, or after
// the start of its last millisecond) is an [ErrTimeRange] error; types
// without a timestamp fail as for [TimeOf].
func MinID[T IDType](t time.Time) (T, error) {
	if err := timeCheck(typeKey[T]()); err != nil {
		return T{}, err
	}
	ms, err := ceilMilli(t)
	if err != nil || ms > maxMilli {
		return T{}, rangeError(t)
	}
	return T{max(ms<<tsShift, 1)}, nil
}

// MaxID returns the highest ID of type T whose timestamp is at or before
// t: the last ID of t's millisecond (every machine ID and counter value).
// For every non-zero id of T,
//
//	id <= MaxID(t)  exactly when  !TimeOf(id).After(t)
//
// comparing stored values as uint64. Errors are those of [MinID], for an
// instant before the default epoch or at or after the end of the range.
func MaxID[T IDType](t time.Time) (T, error) {
	if err := timeCheck(typeKey[T]()); err != nil {
		return T{}, err
	}
	ms, err := floorMilli(t)
	if err != nil || ms > maxMilli {
		return T{}, rangeError(t)
	}
	return T{ms<<tsShift | lowMask}, nil
}

// IDRange returns the bounds of the IDs of type T whose timestamp lies in
// [from, to), both inclusive, for a query
//
//	WHERE id BETWEEN $lo AND $hi
//
// that an index or range partitions on id serve: lo is MinID(from) and hi
// the ID just below MinID(to). When no millisecond starts in [from, to)
// (both within one millisecond), lo is above hi and the query matches
// nothing. from must be before to, from within the 42-bit range and to no
// later than its end ([ErrTimeRange] otherwise).
//
// Bounds passed as query arguments take the type's database form (Value),
// so the range must be an interval in the database's order: a signed
// bigint (the default DBFormat) sorts values from 2^63 up (timestamps from
// 2094-09-07T15:47:35.552Z on) below the others, and a range across that
// instant is an [ErrTimeRange] error (split it there); url64 text does not
// sort by value at all, an [ErrConfig] error. Unsigned, raw, hex and hex32
// columns sort by value.
func IDRange[T IDType](from, to time.Time) (lo, hi T, err error) {
	key := typeKey[T]()
	if err := timeCheck(key); err != nil {
		return T{}, T{}, err
	}
	if !from.Before(to) {
		return T{}, T{}, &idError{kind: ErrTimeRange, msg: "once: empty time range: from " +
			stamp(from) + " is not before to " + stamp(to)}
	}
	c := codecFor(key)
	if c.db == URL64 {
		return T{}, T{}, &idError{kind: ErrConfig, msg: "once: time range of " + typeOfKey(key).String() +
			": DBFormat url64 does not sort by value; range queries need signed, unsigned, raw, hex or hex32"}
	}
	first, err := ceilMilli(from)
	if err != nil || first > maxMilli {
		return T{}, T{}, rangeError(from)
	}
	end, err := ceilMilli(to)
	if err != nil || end > maxMilli+1 {
		return T{}, T{}, rangeError(to)
	}
	l, h := max(first<<tsShift, 1), end<<tsShift-1 // end<<22 wraps to 0 at the end of the range: h = 2^64-1
	if c.db == Signed && l < h && l&signBit != h&signBit {
		return T{}, T{}, &idError{kind: ErrTimeRange, msg: "once: time range " + stamp(from) + " to " + stamp(to) +
			" crosses " + stamp(time.UnixMilli(epochMs+1<<41)) + ", where signed bigint order wraps; split it there"}
	}
	return T{l}, T{h}, nil
}

// timeCheck reports why the IDs of the type with key carry no timestamp
// that the time bounds can read: misconfigured options, encrypted nonces,
// or a bound factory with another epoch.
func timeCheck(key unsafe.Pointer) error {
	c := codecFor(key)
	if c.err != nil {
		return c.err
	}
	if c.nonce == nonce.Encrypted {
		return &idError{kind: ErrConfig, msg: "once: time bounds of " + typeOfKey(key).String() +
			": encrypted nonces carry no timestamp (Nonce counter or sortable has one)"}
	}
	if f := c.gen.Factory(); f != nil && f.Epoch().UnixNano() != epochMs*1e6 {
		return &idError{kind: ErrConfig, msg: "once: time bounds of " + typeOfKey(key).String() +
			" use the default epoch, but its generator counts from " + stamp(f.Epoch()) +
			" (nonce.Split64 reads such IDs)"}
	}
	return nil
}

// floorMilli returns the millisecond since the default epoch that t falls
// in, or an error before the epoch. Values past the range are returned as
// they are, for the caller to compare; far-future times saturate.
func floorMilli(t time.Time) (uint64, error) {
	s := t.Unix() - epochMs/1000
	if s < 0 {
		return 0, errBefore
	}
	if s > 1<<43/1000 {
		return 1 << 43, nil
	}
	return uint64(s)*1000 + uint64(t.Nanosecond())/1e6, nil
}

// ceilMilli is floorMilli rounded up: the first millisecond that starts
// at or after t.
func ceilMilli(t time.Time) (uint64, error) {
	ms, err := floorMilli(t)
	if err == nil && t.Nanosecond()%1e6 != 0 {
		ms++
	}
	return ms, err
}

var errBefore = errors.New("before the epoch")

// rangeError reports an instant outside the range of timestamps.
func rangeError(t time.Time) error {
	return &idError{kind: ErrTimeRange, msg: "once: time " + stamp(t) + " is outside the range of IDs, " +
		stamp(time.UnixMilli(epochMs)) + " to " + stamp(time.UnixMilli(epochMs+maxMilli+1))}
}

// stamp formats t for an error message: RFC 3339 in UTC, with the
// fraction when there is one.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
