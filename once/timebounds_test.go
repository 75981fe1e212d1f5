package once_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var tbBinding once.Binding

type (
	tbSortSpec     struct{} // sortable, signed bigint (the default DBFormat)
	tbUnsignedSpec struct{} // sortable, BIGINT UNSIGNED
	tbURL64DBSpec  struct{} // url64 text in the database
	tbEncSpec      struct{} // encrypted nonces: no timestamp
	tbBoundSpec    struct{} // bound to tbBinding
	tbBadSpec      struct{} // invalid options
)

type (
	tbSortID     = once.Typed[tbSortSpec]
	tbUnsignedID = once.Typed[tbUnsignedSpec]
)

func (tbSortSpec) Options() once.Options { return once.Options{Prefix: "ord_", Nonce: nonce.Sortable} }
func (tbUnsignedSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Sortable, DBFormat: once.Unsigned}
}
func (tbURL64DBSpec) Options() once.Options { return once.Options{DBFormat: once.URL64} }
func (tbEncSpec) Options() once.Options     { return once.Options{Nonce: nonce.Encrypted} }
func (tbBoundSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Sortable, Generator: &tbBinding}
}
func (tbBadSpec) Options() once.Options { return once.Options{PersistPrefix: true} }

var (
	tbEpoch = nonce.DefaultEpoch()
	tbEnd   = tbEpoch.Add((1 << 42) * time.Millisecond) // the first instant past the range
)

// tbRand returns a seeded source; the seed is logged so a failure can be
// reproduced.
func tbRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

// tbInstant returns a random instant in the range, with nanoseconds; every
// fifth one falls on a millisecond.
func tbInstant(r *rand.Rand) time.Time {
	t := tbEpoch.Add(time.Duration(r.Int64N(int64(tbEnd.Sub(tbEpoch)))))
	if r.IntN(5) == 0 {
		t = t.Truncate(time.Millisecond)
	}
	return t
}

// tbNear returns a non-zero value whose timestamp is within 2 ms of t's
// millisecond (clamped to the range), with random, minimal or maximal
// machine and counter bits.
func tbNear(r *rand.Rand, t time.Time) uint64 {
	ms := int64(t.Sub(tbEpoch)/time.Millisecond) + r.Int64N(5) - 2
	ms = min(max(ms, 0), 1<<42-1)
	low := r.Uint64() & (1<<22 - 1)
	switch r.IntN(4) {
	case 0:
		low = 0
	case 1:
		low = 1<<22 - 1
	}
	return max(uint64(ms)<<22|low, 1)
}

// TestTimeOfLayout: the time of an ID is its top 42 bits as milliseconds
// after the default epoch, as nonce.Split64 reads them, for random values,
// the edges and values with the top bit set.
func TestTimeOfLayout(t *testing.T) {
	r := tbRand(t)
	vals := []uint64{1, 1<<22 - 1, 1 << 22, 1<<63 - 1, 1 << 63, 1<<64 - 1, 0x8000_0000_0040_0000}
	for range 10000 {
		vals = append(vals, r.Uint64()|1)
	}
	for _, v := range vals {
		got, err := once.TimeOf(tbSortID(once.FromUint64(v)))
		if err != nil {
			t.Fatalf("TimeOf(%d): %v", v, err)
		}
		want := time.UnixMilli(nonce.DefaultEpochUnixMilli + int64(v>>22)).UTC()
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("TimeOf(%#x) = %v, want %v", v, got, want)
		}
		if p := nonce.Split64(v, time.Time{}); !p.Time.Equal(got) {
			t.Fatalf("TimeOf(%#x) = %v, nonce.Split64 says %v", v, got, p.Time)
		}
	}
	if got, _ := once.TimeOf(once.FromUint64(1<<64 - 1)); got.Format(time.RFC3339Nano) != "2164-05-15T07:35:11.103Z" {
		t.Errorf("TimeOf(max) = %v", got)
	}
	if _, err := once.TimeOf(tbSortID{}); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("TimeOf(zero ID) = %v, want ErrInvalid", err)
	}
}

// TestMinMaxIDBounds: MinID(t) and MaxID(t) bound exactly the IDs at or
// after, and at or before, t (as uint64 values), for random instants with
// and without a fraction of a millisecond and IDs around them.
func TestMinMaxIDBounds(t *testing.T) {
	r := tbRand(t)
	for range 20000 {
		at := tbInstant(r)
		lo, errLo := once.MinID[tbSortID](at)
		hi, errHi := once.MaxID[tbSortID](at)
		if errHi != nil {
			t.Fatalf("MaxID(%v): %v", at, errHi)
		}
		if errLo != nil {
			// Only an instant inside the last millisecond has no ID at or after it.
			if !errors.Is(errLo, once.ErrTimeRange) || at.Before(tbEnd.Add(-time.Millisecond)) {
				t.Fatalf("MinID(%v): %v", at, errLo)
			}
			continue
		}
		if lo.Uint64()&(1<<22-1) != 0 && lo.Uint64() != 1 || hi.Uint64()&(1<<22-1) != 1<<22-1 {
			t.Fatalf("MinID, MaxID(%v) = %#x, %#x: not the first and last ID of a millisecond", at, lo.Uint64(), hi.Uint64())
		}
		for range 8 {
			v := tbNear(r, at)
			ts, _ := once.TimeOf(tbSortID(once.FromUint64(v)))
			if (lo.Uint64() <= v) != !ts.Before(at) {
				t.Fatalf("t %v, id %#x (time %v): MinID = %#x", at, v, ts, lo.Uint64())
			}
			if (v <= hi.Uint64()) != !ts.After(at) {
				t.Fatalf("t %v, id %#x (time %v): MaxID = %#x", at, v, ts, hi.Uint64())
			}
		}
	}
}

func TestMinMaxIDEdges(t *testing.T) {
	ms := func(n int64) time.Time { return tbEpoch.Add(time.Duration(n) * time.Millisecond) }
	for _, c := range []struct {
		at       time.Time
		min, max uint64
	}{
		{tbEpoch, 1, 1<<22 - 1}, // 0 is the zero ID
		{ms(1), 1 << 22, 2<<22 - 1},
		{tbEpoch.Add(time.Nanosecond), 1 << 22, 1<<22 - 1},
		{ms(1).Add(-time.Nanosecond), 1 << 22, 1<<22 - 1},
		{ms(1 << 41), 1 << 63, 1<<63 | 1<<22 - 1},
		{ms(1<<42 - 1), 1<<64 - 1<<22, 1<<64 - 1},
		{ms(1 << 20).In(time.FixedZone("X", 5*3600)), 1 << 42, 1<<42 | 1<<22 - 1},
	} {
		lo, err := once.MinID[tbUnsignedID](c.at)
		hi, err2 := once.MaxID[tbUnsignedID](c.at)
		if err != nil || err2 != nil || lo.Uint64() != c.min || hi.Uint64() != c.max {
			t.Errorf("at %v: MinID %#x %v, MaxID %#x %v; want %#x, %#x", c.at, lo.Uint64(), err, hi.Uint64(), err2, c.min, c.max)
		}
	}
	for _, at := range []time.Time{{}, tbEpoch.Add(-time.Nanosecond), time.Unix(0, 0), tbEnd, tbEnd.Add(time.Hour),
		time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-5000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := once.MinID[tbSortID](at); !errors.Is(err, once.ErrTimeRange) || !strings.HasPrefix(err.Error(), "once: time ") {
			t.Errorf("MinID(%v) = %v, want ErrTimeRange", at, err)
		}
		if _, err := once.MaxID[tbSortID](at); !errors.Is(err, once.ErrTimeRange) {
			t.Errorf("MaxID(%v) = %v, want ErrTimeRange", at, err)
		}
	}
	// Inside the last millisecond: the last IDs are before it, none after.
	last := tbEnd.Add(-time.Microsecond)
	if _, err := once.MinID[tbSortID](last); !errors.Is(err, once.ErrTimeRange) {
		t.Errorf("MinID(%v) = %v, want ErrTimeRange", last, err)
	}
	if hi, err := once.MaxID[tbSortID](last); err != nil || hi.Uint64() != 1<<64-1 {
		t.Errorf("MaxID(%v) = %#x, %v", last, hi.Uint64(), err)
	}
}

// TestIDRange: lo <= id <= hi exactly when from <= TimeOf(id) < to, for
// random ranges (some shorter than a millisecond) and IDs around both ends.
func TestIDRange(t *testing.T) {
	r := tbRand(t)
	for range 20000 {
		from := tbInstant(r)
		to := from.Add(time.Duration(r.Int64N(int64(10 * time.Millisecond))))
		if r.IntN(4) == 0 {
			to = from.Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		}
		if !to.After(from) || to.After(tbEnd) {
			continue
		}
		lo, hi, err := once.IDRange[tbUnsignedID](from, to)
		if err != nil {
			if errors.Is(err, once.ErrTimeRange) && from.After(tbEnd.Add(-time.Millisecond)) {
				continue
			}
			t.Fatalf("IDRange(%v, %v): %v", from, to, err)
		}
		for range 8 {
			at := from
			if r.IntN(2) == 0 {
				at = to
			}
			v := tbNear(r, at)
			ts, _ := once.TimeOf(tbUnsignedID(once.FromUint64(v)))
			in := lo.Uint64() <= v && v <= hi.Uint64()
			if want := !ts.Before(from) && ts.Before(to); in != want {
				t.Fatalf("IDRange(%v, %v) = [%#x, %#x]; id %#x (time %v) in it: %v, want %v",
					from, to, lo.Uint64(), hi.Uint64(), v, ts, in, want)
			}
		}
	}
}

func TestIDRangeEdges(t *testing.T) {
	ms := func(n int64) time.Time { return tbEpoch.Add(time.Duration(n) * time.Millisecond) }

	// The whole range, unsigned: every non-zero value.
	lo, hi, err := once.IDRange[tbUnsignedID](tbEpoch, tbEnd)
	if err != nil || lo.Uint64() != 1 || hi.Uint64() != 1<<64-1 {
		t.Errorf("IDRange(whole) = %#x, %#x, %v", lo.Uint64(), hi.Uint64(), err)
	}
	// Within one millisecond: lo above hi, a BETWEEN that matches nothing.
	lo, hi, err = once.IDRange[tbUnsignedID](ms(5).Add(100*time.Microsecond), ms(5).Add(900*time.Microsecond))
	if err != nil || lo.Uint64() != 6<<22 || hi.Uint64() != 6<<22-1 {
		t.Errorf("IDRange(inside 1 ms) = %#x, %#x, %v", lo.Uint64(), hi.Uint64(), err)
	}
	// Empty and reversed ranges.
	for _, c := range [][2]time.Time{{ms(5), ms(5)}, {ms(6), ms(5)}} {
		if _, _, err := once.IDRange[tbSortID](c[0], c[1]); !errors.Is(err, once.ErrTimeRange) || !strings.Contains(err.Error(), "empty time range") {
			t.Errorf("IDRange(%v, %v) = %v, want ErrTimeRange", c[0], c[1], err)
		}
	}
	// Outside the range.
	for _, c := range [][2]time.Time{{tbEpoch.Add(-time.Millisecond), ms(5)}, {ms(5), tbEnd.Add(time.Nanosecond)}} {
		if _, _, err := once.IDRange[tbSortID](c[0], c[1]); !errors.Is(err, once.ErrTimeRange) {
			t.Errorf("IDRange(%v, %v) = %v, want ErrTimeRange", c[0], c[1], err)
		}
	}
	// Across 2^63: fine unsigned, an error for a signed bigint column, fine
	// on either side of it.
	wrap := ms(1 << 41)
	if _, _, err := once.IDRange[tbUnsignedID](wrap.Add(-time.Hour), wrap.Add(time.Hour)); err != nil {
		t.Errorf("IDRange across 2^63, unsigned: %v", err)
	}
	_, _, err = once.IDRange[tbSortID](wrap.Add(-time.Hour), wrap.Add(time.Hour))
	if !errors.Is(err, once.ErrTimeRange) || !strings.Contains(err.Error(), "2094-09-07T15:47:35.552Z") {
		t.Errorf("IDRange across 2^63, signed: %v, want ErrTimeRange naming the instant", err)
	}
	for _, c := range [][2]time.Time{{wrap.Add(-time.Hour), wrap}, {wrap, wrap.Add(time.Hour)}} {
		lo, hi, err := once.IDRange[tbSortID](c[0], c[1])
		if err != nil || lo.Int64() > hi.Int64() {
			t.Errorf("IDRange(%v, %v) = %d, %d, %v: want an interval of signed values", c[0], c[1], lo.Int64(), hi.Int64(), err)
		}
	}
	if _, _, err := once.IDRange[once.Typed[tbURL64DBSpec]](ms(1), ms(2)); !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), "url64") {
		t.Errorf("IDRange with DBFormat url64 = %v, want ErrConfig", err)
	}
}

// TestTimeBoundsRefuse: types whose IDs carry no timestamp that the bounds
// can read get an error from every function, never a time or a bound.
func TestTimeBoundsRefuse(t *testing.T) {
	at := tbEpoch.Add(time.Hour)
	check := func(name string, want error, errs ...error) {
		t.Helper()
		for i, err := range errs {
			if !errors.Is(err, want) || !strings.HasPrefix(err.Error(), "once: ") {
				t.Errorf("%s: function %d: %v, want %v", name, i, err, want)
			}
		}
	}
	type enc = once.Typed[tbEncSpec]
	_, e1 := once.TimeOf(enc(once.FromUint64(1 << 40)))
	_, e2 := once.MinID[enc](at)
	_, e3 := once.MaxID[enc](at)
	_, _, e4 := once.IDRange[enc](at, at.Add(time.Hour))
	check("encrypted", once.ErrConfig, e1, e2, e3, e4)

	type bad = once.Typed[tbBadSpec]
	_, e1 = once.TimeOf(bad(once.FromUint64(1 << 40)))
	_, e2 = once.MinID[bad](at)
	check("invalid options", once.ErrConfig, e1, e2)

	// A factory with another epoch: refused while bound, fine with the
	// default epoch.
	type bound = once.Typed[tbBoundSpec]
	f, err := nonce.New(nonce.Config{Fixed: true, Epoch: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	tbBinding.Set(f)
	defer tbBinding.Set(nil)
	_, e1 = once.TimeOf(bound(once.FromUint64(1 << 40)))
	_, e2 = once.MinID[bound](at)
	check("other epoch", once.ErrConfig, e1, e2)
	if !strings.Contains(e1.Error(), "2020-01-01T00:00:00Z") {
		t.Errorf("message does not name the factory's epoch: %v", e1)
	}
	f, err = nonce.New(nonce.Config{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	tbBinding.Set(f)
	if _, err := once.MinID[bound](at); err != nil {
		t.Errorf("default epoch: %v", err)
	}
}

// TestTimeOfNewSortable: a sortable ID's time is when it was made.
func TestTimeOfNewSortable(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.UTC)
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 3, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	tbBinding.Set(f)
	defer tbBinding.Set(nil)
	id, err := once.NewAs[once.Typed[tbBoundSpec]]()
	if err != nil {
		t.Fatal(err)
	}
	got, err := once.TimeOf(id)
	if err != nil || !got.Equal(at.Truncate(time.Millisecond)) {
		t.Fatalf("TimeOf(new ID) = %v, %v; want %v", got, err, at.Truncate(time.Millisecond))
	}
	lo, hi, err := once.IDRange[once.Typed[tbBoundSpec]](at.Add(-time.Second), at.Add(time.Second))
	if err != nil || id.Uint64() < lo.Uint64() || id.Uint64() > hi.Uint64() {
		t.Fatalf("IDRange around its creation = %#x, %#x, %v; id %#x outside", lo.Uint64(), hi.Uint64(), err, id.Uint64())
	}
}

// TestTimeBoundsAllocs: the bounds allocate nothing on success.
func TestTimeBoundsAllocs(t *testing.T) {
	at := tbEpoch.Add(400 * 24 * time.Hour)
	id := tbSortID(once.FromUint64(1 << 50))
	if n := testing.AllocsPerRun(100, func() {
		once.TimeOf(id)
		once.MinID[tbSortID](at)
		once.MaxID[tbSortID](at)
		once.IDRange[tbSortID](at, at.Add(time.Hour))
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
