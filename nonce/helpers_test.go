package nonce

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is an injectable clock that moves only when a test moves it.
// Its readings carry no monotonic part, so the factory measures wall time.
type fakeClock struct {
	ns    atomic.Int64
	reads atomic.Int64
}

func newFakeClock(t time.Time) *fakeClock {
	c := new(fakeClock)
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time {
	c.reads.Add(1)
	return time.Unix(0, c.ns.Load()).UTC()
}

func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// ms returns the clock's reading in ms since the default epoch.
func (c *fakeClock) ms() uint64 {
	return uint64((c.ns.Load() - DefaultEpoch().UnixNano()) / 1e6)
}

// timeZero is the zero time, for optional time arguments.
var timeZero time.Time

// testStart is an arbitrary clock reading well after the default epoch.
var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testBaseKey is a fixed 32-byte base key for tests.
var testBaseKey = []byte("0123456789abcdef0123456789abcdef")

func mustNew(t testing.TB, cfg Config) *Factory {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

// fields of the layouts, for assertions.
func ts64(v uint64) uint64      { return v >> 22 }
func machine64(v uint64) uint64 { return v >> 13 & 511 }
func count64(v uint64) uint64   { return v & 8191 }

func split96(b [12]byte) (ts, machine, count uint64) {
	hi := binary.BigEndian.Uint64(b[:8])
	lo := uint64(binary.BigEndian.Uint32(b[8:]))
	return hi >> 22, hi >> 13 & 511, (hi&8191)<<32 | lo
}

func split128(b [16]byte) (ts, machine, zero, count uint64) {
	hi := binary.BigEndian.Uint64(b[:8])
	return hi >> 22, hi >> 13 & 511, hi & 8191, binary.BigEndian.Uint64(b[8:])
}

// waitDeadline bounds each wait of a test on a generator, so that a
// regression that makes a generator return at once, or never, fails the
// test with a message instead of hanging until the test binary's timeout.
const waitDeadline = 10 * time.Second

// awaitWaiting waits until the factory has read the clock n more times
// (the generator on got is polling it: waiting). It returns the value and
// true if the generator delivered on got first (it did not wait), and
// fails the test if neither happens within waitDeadline.
func awaitWaiting[T any](t *testing.T, c *fakeClock, n int64, got <-chan T) (T, bool) {
	t.Helper()
	target := c.reads.Load() + n
	deadline := time.Now().Add(waitDeadline)
	for c.reads.Load() < target {
		select {
		case v := <-got:
			return v, true
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the generator had read the clock %d of %d more times and not returned: neither waiting nor done",
				waitDeadline, n-(target-c.reads.Load()), n)
		}
		time.Sleep(100 * time.Microsecond)
	}
	var zero T
	return zero, false
}

// receive returns what the generator delivers on got, failing the test if
// nothing comes within waitDeadline.
func receive[T any](t *testing.T, got <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-got:
		return v
	case <-time.After(waitDeadline):
		t.Fatalf("%s: nothing returned within %v", what, waitDeadline)
	}
	var zero T
	return zero
}
