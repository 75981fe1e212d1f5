package nonce

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// state is everything one lease (or one lease-less run) of a factory
// generates from. Generators reach it through Factory.state, an
// atomic.Pointer: nil means disabled, and swapping in a new state starts a
// new lease for every goroutine at once.
type state struct {
	// The 64-bit counter's fast path: the machine's place in a 64-bit
	// value (read-only), the latest clock reading checked against the
	// deadline (read on every call, written rarely) and the counter word
	// (ts<<13 | count, a count overflow carrying into the timestamp), on a
	// cache line of its own.
	mbits uint64
	known atomic.Uint64
	_     [48]byte
	word  atomic.Uint64
	_     [56]byte

	// Read-only after construction.
	machine uint64    // machine ID
	initAt  uint64    // first timestamp (ms since the epoch) of this state
	baseT   time.Time // clock reading at construction (monotonic if the clock has one)
	baseNs  int64     // baseT in ns since the epoch

	// Read by the other generators' calls, written rarely.
	deadline atomic.Int64 // ns after baseT at which the lease expires; noDeadline if none

	// One word per generator, each on its own cache line (the 64-bit
	// counter's is above).
	_    [64]byte
	c96  paddedWord // counter 96: values issued so far; bits above 45 add to initAt
	c128 paddedWord // counter 128: values issued so far
	s64  paddedWord // sortable 64: ts<<22 | count
	s96  paddedWord // sortable 96: ts<<22 | count
	s128 paddedWord // sortable 128: ts<<22 | count
}

type paddedWord struct {
	atomic.Uint64
	_ [56]byte
}

const (
	noDeadline = math.MaxInt64
	// sealedCounter is swapped into the counter words when a state is
	// retired: every later increment lands far above any real value and
	// sends the caller to the slow path, which sees the state is gone.
	sealedCounter = 1 << 62
	// sealedSort is swapped into sortable words when a state is retired.
	sealedSort = math.MaxUint64
	// maxPause bounds one sleep of a waiting generator, so that it notices a
	// disable, a new lease or an advanced test clock promptly.
	maxPause = 10 * time.Millisecond
	// maxSpins bounds how often a waiting generator yields before it sleeps.
	maxSpins = 10000
)

// newState builds the state of a lease whose first timestamp is initAt,
// with base the current clock reading.
func (f *Factory) newState(machineID int, initAt uint64, base time.Time) *state {
	st := &state{
		machine: uint64(machineID),
		initAt:  initAt,
		baseT:   base,
		baseNs:  base.UnixNano() - f.epochNs,
	}
	st.mbits = uint64(machineID) << count64Bits
	st.deadline.Store(noDeadline)
	st.known.Store(st.ms(0))
	st.word.Store(initAt<<count64Bits - 1) // first increment yields (initAt, 0)
	// Sortable words start "full at initAt-1": the first call moves them to
	// its own millisecond, which must not be below initAt.
	sortInit := uint64(sortCountMask)
	if initAt > 0 {
		sortInit |= (initAt - 1) << sortCountBits
	}
	st.s64.Store(sortInit)
	st.s96.Store(sortInit)
	st.s128.Store(sortInit)
	return st
}

// seal retires st and returns the highest timestamp any value drawn from it
// can carry, including values whose callers are still in flight: the swaps
// return every increment made before them, and increments after them see a
// sealed word and emit nothing. Untouched words contribute initAt-1 at most,
// so a lease that emitted nothing does not push the next one ahead.
func (st *state) seal() uint64 {
	hi := st.word.Swap(sealedCounter) >> count64Bits
	if n := st.c96.Swap(sealedCounter); n > 0 {
		hi = max(hi, st.initAt+(n-1)>>count96Bits)
	}
	if st.c128.Swap(sealedCounter) > 0 {
		hi = max(hi, st.initAt)
	}
	for _, w := range []*paddedWord{&st.s64, &st.s96, &st.s128} {
		if v := w.Swap(sealedSort); v != sealedSort {
			hi = max(hi, v>>sortCountBits)
		}
	}
	return hi
}

// wall reads the factory's clock.
func (f *Factory) wall() time.Time {
	if f.now == nil {
		return time.Now()
	}
	return f.now()
}

// elapsed returns the ns since st was built. With the default clock this
// reads only the monotonic clock.
func (f *Factory) elapsed(st *state) int64 {
	if f.now == nil {
		return int64(time.Since(st.baseT))
	}
	return int64(f.now().Sub(st.baseT))
}

// ms converts an elapsed reading to ms since the epoch.
func (st *state) ms(elapsed int64) uint64 {
	ns := st.baseNs + elapsed
	if ns < 0 {
		return 0
	}
	return uint64(ns / msPerNs)
}

// until returns how long after the elapsed reading el the clock reaches
// timestamp ts.
func (st *state) until(el int64, ts uint64) time.Duration {
	return time.Duration(int64(ts)*msPerNs - (st.baseNs + el))
}

// raiseKnown records a deadline-checked clock reading.
func (st *state) raiseKnown(now uint64) {
	for {
		k := st.known.Load()
		if now <= k || st.known.CompareAndSwap(k, now) {
			return
		}
	}
}

// await blocks until the clock reaches ts (ms since the epoch). It reports
// ok when a value with timestamp ts may be emitted from st; !ok with a nil
// error when st was replaced by a new lease (draw again from that one); an
// error when the factory is disabled or st's lease expired. The wait is
// bounded by how far ts is ahead of the clock: under sustained overload
// about a millisecond, after Activate with a future notBefore until then.
// It yields or sleeps at most maxPause at a time and re-checks the
// factory's state and deadline after every pause.
func (f *Factory) await(st *state, ts uint64) (bool, error) {
	for spins := 0; ; spins++ {
		if cur := f.state.Load(); cur != st {
			if cur == nil {
				return false, f.disabledErr()
			}
			return false, nil
		}
		el := f.elapsed(st)
		if el >= st.deadline.Load() {
			return false, f.expire(st)
		}
		now := st.ms(el)
		if now >= maxTS || ts >= maxTS {
			return false, errOverflow
		}
		st.raiseKnown(now)
		if ts <= now {
			return true, nil
		}
		pause(st.until(el, ts), spins)
	}
}

// pause waits for about d, the time until the clock reaches a timestamp;
// spins counts the caller's previous pauses. Waits of up to a millisecond
// (the common case: the next millisecond) yield the processor rather than
// sleep, because a sleep lasts at least about a millisecond on Linux. After
// maxSpins yields the clock is evidently not moving on its own (a test
// clock, testing/synctest), so pause sleeps and lets fake time advance.
func pause(d time.Duration, spins int) {
	switch {
	case d > maxPause:
		time.Sleep(maxPause)
	case d > time.Millisecond || spins >= maxSpins:
		time.Sleep(d)
	default:
		runtime.Gosched()
	}
}
