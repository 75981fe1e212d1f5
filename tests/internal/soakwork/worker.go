// Package soakwork is the soak's worker: a small service that holds a
// machine ID through the public API only (a strategy's constructor,
// lease.Start with a StateFile, nonce factories, once ID types, the
// README's shutdown) and records every ID it hands out and every lease
// event (package soakrec).
package soakwork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
	"github.com/once-go/once/tests/internal/soakrec"
)

// Config is a worker's configuration (its command-line flags).
type Config struct {
	Proc          string        // name in the records, e.g. "w3"
	Coordinator   string        // one of Coordinators
	Target        string        // DSN or address(es), usually a fault proxy
	Namespace     string        // table, hash or key prefix
	StateFile     string        // lease.Options.StateFile; "" for none
	Out           string        // record file (appended)
	Rate          int           // IDs per second at most
	ClockOffset   time.Duration // added to the nonce factory's clock
	LeaseDuration time.Duration
	RenewInterval time.Duration
	IDs           int    // > 0: take only machine IDs 0..IDs-1, waiting while they are all held
	Holding       string // a file that exists, holding the machine ID, while the worker holds a lease ("": none)
	Key           string // ONCE_KEY: base key of the factory and of masking
	// ClockFile, read on SIGUSR2, holds a new clock offset (a duration):
	// a step of the factory's wall clock while the worker runs.
	ClockFile string
}

// kinds are the ID types a worker hands out in turn.
var kinds = []struct {
	name   string
	masked bool
	opts   func(b *once.Binding) once.Options
}{
	{"counter", false, func(b *once.Binding) once.Options { return once.Options{Nonce: nonce.Counter, Generator: b} }},
	{"sortable", false, func(b *once.Binding) once.Options { return once.Options{Nonce: nonce.Sortable, Generator: b} }},
	{"counter", true, func(b *once.Binding) once.Options {
		return once.Options{Nonce: nonce.Counter, Mask: true, Generator: b}
	}},
	{"sortable", true, func(b *once.Binding) once.Options {
		return once.Options{Nonce: nonce.Sortable, Mask: true, Generator: b}
	}},
}

// Align is the period on the real clock at which waiting workers try to
// take an ID (contention runs).
const Align = 250 * time.Millisecond

// Stagger bounds the random delay after every other Align boundary at
// which a waiting worker tries: on even boundaries the waiters claim at
// the same moment (a tie), on odd ones a request or two apart, so the
// coordinator's compare-and-set meets both ties and a contender that won
// between a claim's read and its write.
const Stagger = 20 * time.Millisecond

// untilBeat is how long a waiting worker sleeps before its next try: to
// the next Align boundary of the real clock, plus jitter (0..Stagger) if
// that boundary is odd (its count of Align since the Unix epoch).
func untilBeat(now time.Time, jitter time.Duration) time.Duration {
	next := now.Truncate(Align).Add(Align)
	if next.UnixNano()/int64(Align)%2 == 0 {
		jitter = 0
	}
	return next.Add(jitter).Sub(now)
}

// Run is the worker's main: it returns when SIGTERM or SIGINT asks it to
// stop (after the documented shutdown), or when the lease cannot be had.
func Run(cfg Config) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	f, err := os.OpenFile(cfg.Out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	rec := soakrec.NewWriter(f, cfg.Proc, os.Getpid())
	defer rec.Close()

	// The factory clock's offset, recorded at start and at every step:
	// the factory checks its lease deadline on that clock, so a clock
	// behind the real one lets it generate that much past the deadline
	// the manager computed on the real clock, which the checker allows.
	var offset atomic.Int64
	offset.Store(int64(cfg.ClockOffset))
	if cfg.ClockOffset != 0 {
		rec.ClockOffset(time.Now(), cfg.ClockOffset)
	}
	if cfg.ClockFile != "" {
		steps := make(chan os.Signal, 1)
		signal.Notify(steps, syscall.SIGUSR2)
		defer signal.Stop(steps)
		go func() {
			for range steps {
				b, err := os.ReadFile(cfg.ClockFile)
				if d, perr := time.ParseDuration(strings.TrimSpace(string(b))); err == nil && perr == nil {
					// Recorded before the step: either reading bounds
					// the calls in between.
					rec.ClockOffset(time.Now(), d)
					offset.Store(int64(d))
				}
			}
		}()
	}

	var ids *driver.IDRange
	if cfg.IDs > 0 {
		ids = &driver.IDRange{Min: 0, Max: cfg.IDs - 1}
	}
	if cfg.Coordinator == "guard" {
		// Workers w1, w2, ... take fixed IDs 0, 1, ... in turn, modulo
		// the -ids range: with more workers than IDs, two share one.
		n, _ := strconv.Atoi(strings.TrimPrefix(cfg.Proc, "w"))
		id := max(n-1, 0)
		if cfg.IDs > 0 {
			id %= cfg.IDs
		}
		os.Setenv(FixedIDVar, strconv.Itoa(id))
	}
	strategy, closeCoord, err := Connect(ctx, cfg.Coordinator, cfg.Target, cfg.Namespace, ids)
	if err != nil {
		return fmt.Errorf("coordinator: %w", err)
	}
	defer closeCoord()

	ncfg := nonce.Config{BaseKey: []byte(cfg.Key)}
	if cfg.ClockOffset != 0 || cfg.ClockFile != "" {
		ncfg.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	}
	factory, err := nonce.New(ncfg)
	if err != nil {
		return err
	}
	bind := once.Bind(factory)
	news := make([]func() (uint64, error), len(kinds))
	for i, k := range kinds {
		if news[i], err = drawer(k.opts(bind)); err != nil {
			return err
		}
	}

	// The events the checker needs, from the manager's hook (one call at
	// a time, from its goroutine). acquired and renewed carry the time of
	// the operation's start event, which precedes its request: the
	// factories are activated before the end event is delivered, so IDs
	// may precede the end event.
	var opStart time.Time
	lost := make(chan struct{}, 1) // a rejoining worker's loss
	events := func(e lease.Event) {
		if record(rec, cfg, e, time.Now(), &opStart) && rejoins(cfg) {
			select {
			case lost <- struct{}{}:
			default:
			}
		}
	}
	lo := lease.Options{
		Factories:      []*nonce.Factory{factory},
		LeaseDuration:  cfg.LeaseDuration,
		RenewInterval:  cfg.RenewInterval,
		AcquireTimeout: 60 * time.Second,
		StateFile:      cfg.StateFile,
		Events:         events,
		Logger:         slog.New(detachedReleases{slog.Default().Handler(), rec}),
		// guardlease is deterministic: after a loss, take the ID again
		// once its coordinator lets go (the other strategies do anyway).
		ReacquireDeterministic: true,
	}
	if cfg.Coordinator == "guard" {
		// guardlease cannot reclaim (no driver.Reclaimer), and Start
		// refuses a StateFile it could not use: a killed worker waits
		// for its ID's lease to run out, as a pod without a volume does.
		lo.StateFile = ""
	}
	if cfg.LeaseDuration < 30*time.Second {
		// Below the public minimum: a soak built with the oncetest tag
		// (the runner refuses such leases otherwise).
		testonly.ShortLeases(&lo)
	}
	if cfg.IDs > 0 {
		// More workers than IDs: a worker waits for one. Its attempts are
		// aligned on the real clock (every Align, one Start of at most
		// two tries each; on odd beats up to Stagger late), so waiting
		// workers claim a freed ID at about the same moment: the
		// coordinator's compare-and-set decides between them, and a claim
		// follows a release within Align plus Stagger.
		lo.AcquireTimeout = Align * 8 / 5
	}
	for {
		m, err := start(ctx, strategy, lo, cfg.IDs > 0)
		if err != nil {
			return fmt.Errorf("lease.Start: %w", err)
		}
		gen := make(chan struct{})
		genCtx, stopGen := context.WithCancel(context.Background())
		go func() {
			defer close(gen)
			generate(genCtx, rec, factory, news, cfg.Rate)
		}()
		again := false
		select {
		case <-ctx.Done():
		case <-m.Done():
			err = m.Err()
		case <-lost:
			again = true
		}
		stopGen()
		<-gen
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m.Close(cctx) // stops generation, then releases the machine ID
		cancel()
		if !again || ctx.Err() != nil {
			return err
		}
		select {
		case <-lost: // a loss the closed manager reported meanwhile
		default:
		}
	}
}

// record writes what the checker needs of the manager's event e, seen at
// now; opStart keeps the time of the last start event of an acquire,
// reclaim or renewal (acquired and renewed carry it, since it precedes
// the request). It reports whether e is the loss of the lease.
func record(rec *soakrec.Writer, cfg Config, e lease.Event, now time.Time, opStart *time.Time) (lost bool) {
	switch {
	case e.Kind == lease.EventStart && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim || e.Op == lease.OpRenew):
		*opStart = now
	case e.Kind == lease.EventEnd && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim) && e.Err == nil:
		ttl, safe := window(e.TTL, cfg.LeaseDuration)
		rec.Lease(e.MachineID, soakrec.Acquired, sent(*opStart, now, e.Duration), now, ttl, safe, string(e.Op))
		holding(cfg.Holding, e.MachineID)
	case e.Kind == lease.EventEnd && e.Op == lease.OpRenew && e.Err == nil:
		ttl, safe := window(e.TTL, cfg.LeaseDuration)
		rec.Lease(e.MachineID, soakrec.Renewed, sent(*opStart, now, e.Duration), now, ttl, safe, "")
	case e.Kind == lease.EventEnd && e.Op == lease.OpRelease && e.Err == nil:
		rec.Event(e.MachineID, soakrec.Released, now, "")
		holding(cfg.Holding, -1)
	case e.Kind == lease.EventEnd && e.Op == lease.OpRelease && !errors.Is(e.Err, lease.ErrLost):
		// The coordinator may have applied it (a connection cut after
		// the request): recorded at its sending. A release the
		// coordinator refused (the lease is another's) is not.
		rec.Event(e.MachineID, soakrec.ReleaseFailed, now.Add(-e.Duration), errString(e.Err))
	case e.Kind == lease.EventLost:
		rec.Event(e.MachineID, soakrec.Lost, now, fmt.Sprint(e.Err))
		holding(cfg.Holding, -1)
		return true
	}
	return false
}

// rejoins reports whether the worker, after losing its lease, closes its
// manager and waits on the beat again like a starting worker (lease.Start
// anew on the same factory, as a service that restarts its lease does),
// instead of leaving the manager to take a new one with its own backoff.
// In contention runs the workers in odd slots (w1, w3, ...) do: a lost
// ID is then contended by beat-aligned claims, while the even slots keep
// the manager's own reacquisition in the soak.
func rejoins(cfg Config) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(cfg.Proc, "w"))
	return cfg.IDs > 0 && err == nil && n%2 == 1
}

// start starts a manager; a waiting worker (wait) tries on every beat
// (see Align) while every ID is held.
func start(ctx context.Context, s driver.Strategy, lo lease.Options, wait bool) (*lease.Manager, error) {
	m, err := lease.Start(ctx, s, lo)
	for wait && err != nil && ctx.Err() == nil && (errors.Is(err, driver.ErrExhausted) || errors.Is(err, driver.ErrConflict) || errors.Is(err, lease.ErrTimeout)) {
		select {
		case <-ctx.Done():
		case <-time.After(untilBeat(time.Now(), rand.N(Stagger))):
		}
		m, err = lease.Start(ctx, s, lo)
	}
	return m, err
}

// generate draws IDs in turn from every kind, in bursts every 10ms, at
// most rate a second, and records each; a refusal after values were drawn
// is recorded once as "disabled".
func generate(ctx context.Context, rec *soakrec.Writer, f *nonce.Factory, news []func() (uint64, error), rate int) {
	per := max(rate/100, 1)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	enabled := false
	k := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for range per {
			t0 := time.Now()
			v, err := news[k%len(news)]()
			t1 := time.Now()
			if err != nil {
				if enabled {
					enabled = false
					rec.Event(f.MachineID(), soakrec.Disabled, t1, errString(err))
				}
				break
			}
			enabled = true
			// The machine ID is the value's own: the window check looks
			// for a lease of that ID held by this process.
			rec.ID(int(v>>13&511), kinds[k%len(kinds)].name, kinds[k%len(kinds)].masked, v, t0, t1)
			k++
		}
	}
}

// holding writes the machine ID a worker holds to path, or removes path
// when id < 0: how the runner sees which workers hold an ID.
func holding(path string, id int) {
	if path == "" {
		return
	}
	if id < 0 {
		os.Remove(path)
		return
	}
	os.WriteFile(path, []byte(strconv.Itoa(id)), 0o644)
}

func errString(err error) string {
	if errors.Is(err, nonce.ErrDisabled) {
		return "disabled"
	}
	return err.Error()
}

// drawer returns a function that makes a new ID of type o and returns its
// stored value. A masked type's value is read back from its text (the
// masked spelling a client sees), so masking is exercised both ways.
func drawer(o once.Options) (func() (uint64, error), error) {
	n, err := o.NewFunc()
	if err != nil {
		return nil, err
	}
	if !o.Mask {
		return func() (uint64, error) {
			id, err := n()
			return id.Uint64(), err
		}, nil
	}
	var buf []byte
	return func() (uint64, error) {
		id, err := n()
		if err != nil {
			return 0, err
		}
		if buf, err = o.AppendText(buf[:0], id); err != nil {
			return 0, err
		}
		back, err := o.ParseAny(string(buf))
		if err != nil {
			return 0, fmt.Errorf("masked %q does not parse back: %w", buf, err)
		}
		if back != id {
			return 0, fmt.Errorf("masked %q parses back to %d, not %d", buf, back.Uint64(), id.Uint64())
		}
		return back.Uint64(), nil
	}, nil
}

// detachedReleases passes the manager's log records on to h, and records
// a "freed" event for each release the manager made after a call that
// outlived its deadline returned: such a release emits no lease.Event
// (it runs outside the manager's goroutine), only a log record, and the
// checker must know that the ID was given back (a claim by another process
// right after it is no early claim). It is a freed event, not released:
// the lease it gives back may be an old one of an ID the process holds
// again.
type detachedReleases struct {
	slog.Handler
	rec *soakrec.Writer
}

func (d detachedReleases) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "outlived its deadline") && strings.Contains(r.Message, "released") {
		id, ok := -1, false
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "machine_id":
				id = int(a.Value.Int64())
			case "result":
				ok = a.Value.String() == "ok"
			}
			return true
		})
		if ok && id >= 0 {
			d.rec.Event(id, soakrec.Freed, time.Now(), r.Message)
		}
	}
	return d.Handler.Handle(ctx, r)
}

func (d detachedReleases) WithAttrs(as []slog.Attr) slog.Handler {
	return detachedReleases{d.Handler.WithAttrs(as), d.rec}
}

func (d detachedReleases) WithGroup(name string) slog.Handler {
	return detachedReleases{d.Handler.WithGroup(name), d.rec}
}

// window returns the lease a grant gave (the TTL the coordinator granted,
// or the duration asked for when the event carries none) and how much of
// it the process may use by the documented rule, computed here and not
// taken from the manager: the TTL minus the safety margin, which is
// driver.SafetyMargin, or a tenth of a lease below the public minimum
// (ShortLeases).
func window(granted, asked time.Duration) (ttl, safe time.Duration) {
	ttl = granted
	if ttl <= 0 {
		ttl = asked
	}
	margin := driver.SafetyMargin
	if asked < driver.MinLeaseDuration {
		margin = asked / 10
	}
	return ttl, ttl - margin
}

// sent is a time at or before the request of the operation that ended at
// end, taking d: its start event's, or end minus d if that is earlier.
func sent(start, end time.Time, d time.Duration) time.Time {
	if t := end.Add(-d); start.IsZero() || t.Before(start) {
		return t
	}
	return start
}
