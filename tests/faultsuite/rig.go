package faultsuite

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// Short leases for every in-process manager and holder process (with
// testonly.ShortLeases set in Main the manager's margin is a tenth of
// the lease duration). With these values:
//
//	safe window  = TTL - margin             = 1.8s after a request was sent
//	next renewal = min(RenewInterval, safe) - margin = 300ms after it
//	retry pause  = min(1s*2^(n-1)+jitter, RenewInterval) = 500ms
//
// so a renewal can fail three times before the window closes, and every
// case finishes in a few seconds.
const (
	leaseDur   = 2 * time.Second
	renewEvery = 500 * time.Millisecond
	margin     = leaseDur / 10
	safeWindow = leaseDur - margin
	renewAfter = min(renewEvery, safeWindow) - margin
	// drawEvery paces the generators: about 1,000 values per second each,
	// fine-grained enough to see a deadline to the millisecond without
	// taking a CPU of the two away from the coordinators.
	drawEvery = time.Millisecond
	// lateness is how late after the computed deadline the first refused
	// draw may come (timer and scheduler latency under -race on a loaded
	// two-CPU machine). The safety checks do not use it: a value drawn
	// after the deadline fails the test whatever its lateness.
	lateness = 250 * time.Millisecond
)

// lifeKind names a lifecycle call the manager made on a factory.
type lifeKind string

const (
	lifeActivate lifeKind = "activate"
	lifeEnable   lifeKind = "enable"
	lifeExtend   lifeKind = "extend"
	lifeDisable  lifeKind = "disable"
)

// lifeEvent is one lifecycle call. at is taken before the call for calls
// that grant generation (activate, enable, extend) and after it for
// disable, so that checks against it lean towards the stricter reading.
type lifeEvent struct {
	kind       lifeKind
	at         time.Time
	id         int
	notBefore  time.Time
	validUntil time.Time
	err        error
}

// recFactory is the factory the managers get (through leasehook): a real
// nonce factory behind a recorder of every lifecycle call.
//
// A skewed factory models a process whose wall clock is off by skew: its
// nonce.Config.Now is time.Now()+skew. time.Time.Add moves the monotonic
// reading too, so the manager's deadlines (taken on the true clock) are
// moved by skew as well before they reach the factory: the factory's
// frame and the manager's stay one process's clock, only the wall time
// (hence the timestamps) is off.
type recFactory struct {
	f    *nonce.Factory
	skew time.Duration
	// beforeExtend, if set, runs before every Extend is passed on (fault
	// injection: a manager goroutine preempted at the wrong moment).
	beforeExtend func(validUntil time.Time)
	// onEvent, if set, sees every lifecycle call as it is recorded (the
	// holder process prints them).
	onEvent func(lifeEvent)

	mu  sync.Mutex
	log []lifeEvent
}

// newRecFactory returns a recorded factory whose clock is off by skew.
func newRecFactory(skew time.Duration) *recFactory {
	cfg := nonce.Config{}
	if skew != 0 {
		cfg.Now = func() time.Time { return time.Now().Add(skew) }
	}
	f, err := nonce.New(cfg)
	if err != nil {
		panic(err) // a Config without key or Fixed cannot fail
	}
	return &recFactory{f: f, skew: skew}
}

func (r *recFactory) shift(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Add(r.skew)
}

func (r *recFactory) add(e lifeEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, e)
	if r.onEvent != nil {
		r.onEvent(e)
	}
}

func (r *recFactory) Activate(id int, notBefore, validUntil time.Time) error {
	at := time.Now()
	err := r.f.Activate(id, notBefore, r.shift(validUntil))
	r.add(lifeEvent{kind: lifeActivate, at: at, id: id, notBefore: notBefore, validUntil: validUntil, err: err})
	return err
}

func (r *recFactory) Enable(validUntil time.Time) error {
	at := time.Now()
	err := r.f.Enable(r.shift(validUntil))
	r.add(lifeEvent{kind: lifeEnable, at: at, validUntil: validUntil, err: err})
	return err
}

func (r *recFactory) Extend(validUntil time.Time) {
	if r.beforeExtend != nil {
		r.beforeExtend(validUntil)
	}
	at := time.Now()
	r.f.Extend(r.shift(validUntil))
	r.add(lifeEvent{kind: lifeExtend, at: at, validUntil: validUntil})
}

func (r *recFactory) Disable() {
	r.f.Disable()
	r.add(lifeEvent{kind: lifeDisable, at: time.Now()})
}

// events returns the lifecycle calls so far in time order.
func (r *recFactory) events() []lifeEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.log)
	sortLife(out)
	return out
}

// sortLife orders lifecycle calls by time.
func sortLife(evs []lifeEvent) {
	slices.SortStableFunc(evs, func(a, b lifeEvent) int { return a.at.Compare(b.at) })
}

// last returns the latest lifecycle call of one of kinds.
func (r *recFactory) last(kinds ...lifeKind) (lifeEvent, bool) {
	evs := r.events()
	for i := len(evs) - 1; i >= 0; i-- {
		if slices.Contains(kinds, evs[i].kind) {
			return evs[i], true
		}
	}
	return lifeEvent{}, false
}

// draw is one generator call: when it started and ended (this process's
// clock, with its monotonic reading), and its value or error.
type draw struct {
	start, end time.Time
	v          uint64
	err        error
}

// generator draws Sortable64 values from a factory in a loop, the way an
// application's request handlers would, and keeps every result.
// Sortable64 checks the deadline on every call, so it shows exactly when
// generation stops.
type generator struct {
	f     *nonce.Factory
	mu    sync.Mutex
	draws []draw
	stop  chan struct{}
	done  chan struct{}
}

func startGenerator(f *nonce.Factory) *generator {
	g := &generator{f: f, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(g.done)
		t := time.NewTicker(drawEvery)
		defer t.Stop()
		for {
			s := time.Now()
			v, err := f.Sortable64()
			d := draw{start: s, end: time.Now(), v: v, err: err}
			g.mu.Lock()
			g.draws = append(g.draws, d)
			g.mu.Unlock()
			select {
			case <-g.stop:
				return
			case <-t.C:
			}
		}
	}()
	return g
}

// halt stops the generator and returns every draw.
func (g *generator) halt() []draw {
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	<-g.done
	return g.snapshot()
}

func (g *generator) snapshot() []draw {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.draws)
}

// waitValues waits until the generator has drawn n more values after
// since, or fails t after d.
func (g *generator) waitValues(t *testing.T, since time.Time, n int, d time.Duration) {
	t.Helper()
	d = waitBound(d)
	end := time.Now().Add(d)
	for {
		got := 0
		for _, x := range g.snapshot() {
			if x.err == nil && !x.start.Before(since) {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("only %d values drawn in %v after %v, want %d", got, d, since.Format("15:04:05.000"), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// timedEvent is a manager event with the time the hook received it.
type timedEvent struct {
	at time.Time
	lease.Event
}

// eventLog collects manager events and losses.
type eventLog struct {
	mu     sync.Mutex
	evs    []timedEvent
	losses []timedErr
}

type timedErr struct {
	at  time.Time
	err error
}

func (l *eventLog) hook(e lease.Event) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, timedEvent{now, e})
	if e.Kind == lease.EventLost {
		l.losses = append(l.losses, timedErr{now, e.Err})
	}
}

func (l *eventLog) events(match func(lease.Event) bool) []timedEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []timedEvent
	for _, e := range l.evs {
		if match(e.Event) {
			out = append(out, e)
		}
	}
	return out
}

func (l *eventLog) lost() []timedErr {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.losses)
}

// okEnd matches a successful end of op.
func okEnd(ops ...lease.Op) func(lease.Event) bool {
	return func(e lease.Event) bool {
		return e.Kind == lease.EventEnd && e.Err == nil && slices.Contains(ops, e.Op)
	}
}

// waitEvent waits until an event after since matches, or fails t after d.
func (l *eventLog) waitEvent(t *testing.T, since time.Time, d time.Duration, what string, match func(lease.Event) bool) timedEvent {
	t.Helper()
	d = waitBound(d)
	end := time.Now().Add(d)
	for {
		for _, e := range l.events(match) {
			if !e.at.Before(since) {
				return e
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no %s within %v", what, d)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// rig is an in-process holder: a manager on a strategy, protecting one
// recorded nonce factory from which a generator draws continuously.
type rig struct {
	t      *testing.T
	margin time.Duration // the manager's scaled safety margin: a tenth of the lease duration
	m      *lease.Manager
	rf     *recFactory
	gen    *generator
	ev     *eventLog
	log    *bytes.Buffer
}

type rigOptions struct {
	skew           time.Duration // of the factory's wall clock
	handoffSkew    time.Duration // lease.Options.HandoffSkew; 0: suiteHandoffSkew
	leaseDur       time.Duration // 0: leaseDur
	renewEvery     time.Duration // 0: renewEvery
	acquireTimeout time.Duration // 0: 5s
	releaseTimeout time.Duration // 0: 500ms
	beforeExtend   func(time.Time)
}

// lockedBuffer is a bytes.Buffer safe for the manager's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// startRig starts a manager on s and a generator on its factory. The
// manager's log goes to a buffer printed only if the test fails.
func startRig(t *testing.T, s driver.Strategy, o rigOptions) *rig {
	t.Helper()
	d := orDefault(o.leaseDur, leaseDur)
	r := &rig{t: t, margin: d / 10, rf: newRecFactory(o.skew), ev: &eventLog{}, log: &bytes.Buffer{}}
	r.rf.beforeExtend = o.beforeExtend
	lw := &lockedBuffer{b: r.log}
	opts := lease.Options{
		LeaseDuration:  d,
		RenewInterval:  orDefault(o.renewEvery, renewEvery),
		AcquireTimeout: orDefault(o.acquireTimeout, 5*time.Second),
		HandoffSkew:    orDefault(o.handoffSkew, suiteHandoffSkew),
		Events:         r.ev.hook,
		ReleaseTimeout: orDefault(o.releaseTimeout, 500*time.Millisecond),
		Logger:         slog.New(slog.NewTextHandler(lw, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	m, err := lease.Start(leasehook.With(context.Background(), r.rf), s, short(opts))
	if err != nil {
		t.Fatalf("lease.Start: %v", err)
	}
	r.m = m
	r.gen = startGenerator(r.rf.f)
	t.Cleanup(func() {
		r.close()
		if t.Failed() {
			lw.mu.Lock()
			t.Logf("manager log:\n%s", LastLines(r.log.String(), 60))
			lw.mu.Unlock()
		}
	})
	return r
}

// minWait is the least a test waits for something that should happen (a
// renewal, values, a lifecycle call, a loss): under -race on two loaded
// CPUs the scheduler can be seconds late. A longer bound only delays the
// report of a real failure; what must not happen, and when things happen,
// are checked separately against the recorded times.
const minWait = 15 * time.Second

func waitBound(d time.Duration) time.Duration { return max(d, minWait) }

func orDefault(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// close stops the generator and the manager (idempotent).
func (r *rig) close() []draw {
	draws := r.gen.halt()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.m.Close(ctx); err != nil && !errors.Is(err, driver.ErrRetry) && !errors.Is(err, lease.ErrTimeout) {
		r.t.Logf("Close: %v", err)
	}
	return draws
}

// waitRenewal waits for the next successful renewal after since and
// returns it.
func (r *rig) waitRenewal(since time.Time, d time.Duration) timedEvent {
	r.t.Helper()
	return r.ev.waitEvent(r.t, since, d, "successful renewal", okEnd(lease.OpRenew))
}

// computedDeadline is the end of the safe window the spec's formula gives
// for a successful acquire or renewal event: sent + TTL - margin, sent
// being when the request was sent (the event's time minus its duration;
// a hair late, so the estimate errs towards a later deadline).
func computedDeadline(e timedEvent) time.Time {
	return e.at.Add(-e.Duration).Add(e.TTL - margin)
}

// deadlineOf is computedDeadline for this rig's lease duration.
func (r *rig) deadlineOf(e timedEvent) time.Time {
	return e.at.Add(-e.Duration).Add(e.TTL - r.margin)
}

func LastLines(s string, n int) string {
	lines := bytes.Split([]byte(s), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
