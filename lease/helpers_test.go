package lease_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
)

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// journal is an ordered, timestamped record shared by a test's fakes, so
// tests can check what happened in which order and when.
type journal struct {
	mu      sync.Mutex
	entries []entry
}

type entry struct {
	at   time.Time
	what string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, entry{time.Now(), fmt.Sprintf(format, args...)})
}

// find returns the first entry with the given text at or after index from.
func (j *journal) find(from int, what string) (int, entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := from; i < len(j.entries); i++ {
		if j.entries[i].what == what {
			return i, j.entries[i], true
		}
	}
	return -1, entry{}, false
}

func (j *journal) count(what string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, e := range j.entries {
		if e.what == what {
			n++
		}
	}
	return n
}

func (j *journal) String() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := ""
	for _, e := range j.entries {
		s += e.at.Format("15:04:05.000000") + " " + e.what + "\n"
	}
	return s
}

// fakeFactory records its lifecycle calls and models a factory's own
// deadline: it generates while enabled and before validUntil.
type fakeFactory struct {
	j          *journal
	mu         sync.Mutex
	enabled    bool
	machineID  int
	notBefore  time.Time
	validUntil time.Time
	failNext   error // returned by the next Activate
}

func (f *fakeFactory) Activate(id int, notBefore, validUntil time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failNext; err != nil {
		f.failNext = nil
		f.enabled = false
		f.j.add("activate-failed")
		return err
	}
	f.enabled, f.machineID, f.notBefore, f.validUntil = true, id, notBefore, validUntil
	f.j.add("activate")
	return nil
}

func (f *fakeFactory) Enable(validUntil time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enabled, f.validUntil = true, validUntil
	f.j.add("enable")
	return nil
}

func (f *fakeFactory) Extend(validUntil time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.validUntil = validUntil
	f.j.add("extend")
}

func (f *fakeFactory) Disable() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.enabled {
		f.j.add("disable")
	}
	f.enabled = false
}

// generating reports whether the factory would emit a value now.
func (f *fakeFactory) generating() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.enabled && time.Now().Before(f.validUntil)
}

func (f *fakeFactory) state() (id int, notBefore, validUntil time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.machineID, f.notBefore, f.validUntil
}

// fake is a strategy over leasetest.Memory whose operations a test can
// replace; it journals every call.
type fake struct {
	mem *leasetest.Memory
	j   *journal
	det bool

	mu      sync.Mutex
	acquire func(ctx context.Context, d time.Duration) (driver.Lease, error)
	renew   func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error)
	release func(ctx context.Context, l driver.Lease) error
	reclaim func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error)
}

func newFake(j *journal, capacity int) *fake {
	return &fake{mem: leasetest.NewMemory(capacity), j: j}
}

func (f *fake) Name() string        { return "fake" }
func (f *fake) Deterministic() bool { return f.det }

func (f *fake) set(fn func(f *fake)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fake) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	f.j.add("strategy acquire")
	f.mu.Lock()
	fn := f.acquire
	f.mu.Unlock()
	if fn != nil {
		return fn(ctx, d)
	}
	return f.mem.Acquire(ctx, d)
}

func (f *fake) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	f.j.add("strategy renew")
	f.mu.Lock()
	fn := f.renew
	f.mu.Unlock()
	if fn != nil {
		return fn(ctx, l, d)
	}
	return f.mem.Renew(ctx, l, d)
}

func (f *fake) Release(ctx context.Context, l driver.Lease) error {
	f.j.add("strategy release")
	f.mu.Lock()
	fn := f.release
	f.mu.Unlock()
	if fn != nil {
		return fn(ctx, l)
	}
	return f.mem.Release(ctx, l)
}

func (f *fake) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	f.j.add("strategy reclaim")
	f.mu.Lock()
	fn := f.reclaim
	f.mu.Unlock()
	if fn != nil {
		return fn(ctx, l, d)
	}
	return f.mem.Reclaim(ctx, l, d)
}

// recorder collects events.
type recorder struct {
	j  *journal
	mu sync.Mutex
	ev []lease.Event
}

func (r *recorder) hook(e lease.Event) {
	r.mu.Lock()
	r.ev = append(r.ev, e)
	r.mu.Unlock()
	if r.j != nil {
		result := "" // journal the result of end events only
		if e.Kind == lease.EventEnd {
			result = lease.ResultOf(e.Err)
		}
		r.j.add("event %s %s %s", e.Kind, e.Op, result)
	}
}

func (r *recorder) events() []lease.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]lease.Event(nil), r.ev...)
}

func (r *recorder) of(kind lease.EventKind, op lease.Op) []lease.Event {
	var out []lease.Event
	for _, e := range r.events() {
		if e.Kind == kind && e.Op == op {
			out = append(out, e)
		}
	}
	return out
}

// losses returns the reasons of the lost events, in order.
func (r *recorder) losses() []error {
	var out []error
	for _, e := range r.events() {
		if e.Kind == lease.EventLost {
			out = append(out, e.Err)
		}
	}
	return out
}

// rig is one manager under test with its fakes.
type rig struct {
	t   *testing.T
	j   *journal
	s   *fake
	f   *fakeFactory
	rec *recorder
	// fakes are the factories the manager protects beside
	// opts.Factories (through leasehook): f unless a test changes it.
	fakes []leasehook.Factory
	opts  lease.Options
}

func newRig(t *testing.T, capacity int) *rig {
	j := &journal{}
	r := &rig{t: t, j: j, s: newFake(j, capacity), f: &fakeFactory{j: j}, rec: &recorder{j: j}}
	r.fakes = []leasehook.Factory{r.f}
	r.opts = lease.Options{
		Logger: quiet,
		Events: r.rec.hook,
	}
	return r
}

// losses returns the loss reasons reported so far.
func (r *rig) losses() []error { return r.rec.losses() }

// with returns ctx carrying r's fakes for lease.Start.
func (r *rig) with(ctx context.Context) context.Context { return leasehook.With(ctx, r.fakes...) }

// start starts the manager on r's strategy, options and fakes.
func (r *rig) start() *lease.Manager {
	r.t.Helper()
	m, err := lease.Start(r.with(r.t.Context()), r.s, r.opts)
	if err != nil {
		r.t.Fatalf("Start: %v", err)
	}
	r.t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

// errRetry is a transient failure for fakes to return.
var errRetry = fmt.Errorf("%w: connection reset (test)", driver.ErrRetry)

// within reports whether got lies in [lo, hi].
func within(got, lo, hi time.Duration) bool { return got >= lo && got <= hi }
