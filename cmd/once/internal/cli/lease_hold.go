package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/cmd/once/internal/supervise"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

var leaseHoldCmd = &command{
	name:    "lease hold",
	usage:   "lease hold --driver D [--mode hash|key] --dsn DSN [--table T] [--duration DUR] [--renew-interval DUR] [--acquire-timeout DUR] [--release-hold DUR] [--wait-replicas N] [--accept-replica-loss] [--sharing S] [--key-env NAME] [--for DUR | --grace DUR -- CMD [ARG...]] [--verbose]",
	summary: "hold a machine-ID lease (renewing it): print machine_id=N, or run CMD with it",
	about: `Starts a lease manager on the coordinator and holds a lease, renewing it.

Without CMD: once the lease is held and a value with its machine ID may be
emitted (after the hand-off wait, see below), it prints "machine_id=N" on
its own line (and flushes), then holds the lease for --for DUR from then
(default: until SIGINT or SIGTERM), then releases it and exits 0. Should the lease be
lost meanwhile, the reason goes to standard error and, once a new lease is
held, another "machine_id=N" line is printed; if none is held at the end the
exit status is 1. Nothing stops whatever reads machine_id=N when the lease
is lost: prefer "-- CMD".

With "-- CMD [ARG...]": once the lease may be used, it runs CMD with the
machine ID in the environment variable ONCE_MACHINE_ID (nothing is
printed), in a process group of its own, with hold's standard streams. It
stops CMD, sending SIGTERM to its process group and SIGKILL after --grace
DUR, when the lease is lost, when the lease has not been renewed and less
than --grace is left of its safe window, or (passing the signal on instead
of SIGTERM) when hold gets SIGINT or SIGTERM; SIGKILL comes at the end of
the safe window in any case. When CMD exits, anything it left running is
killed, the lease is released and hold exits with CMD's status (128+N if
signal N ended it; 127 if CMD is not found, 126 if it cannot be run). CMD
does not own the terminal: give it its input from a file or pipe. For
example:

  once lease hold --driver postgres --dsn "$DSN" -- once gen --kind sortable -n 1000

` + supervise.TreeNote + `

The hand-off wait: a machine ID's previous holder may have emitted values
with timestamps up to the clock skew allowed between hosts (1s) past its
lease's end, and the new holder's values must come after all of them. So
after a recent release the ID is printed, or CMD started, up to about a
second after the lease is held; a process that starts once it has the ID
reads later timestamps only.

If no lease can be had within the acquire timeout, the reason goes to
standard error and the exit status is 3 (see Exit status below). Any other failure (bad DSN, missing table, unsupported
server) exits 1; invalid durations are a bad command line (exit 2).

With --key-env NAME, the holder records the fingerprint of the base key
in the environment variable NAME (its raw bytes, at least 32, as the other
commands' --key-env reads it) beside its name, as an application's lease
manager records its own key's: "lease ls" shows it, and the application's
managers warn about a holder whose key differs from theirs. Without it the
holder records none ("-": unknown, never a mismatch).

The durations are the lease manager's (lease.Options): --duration must be
at least 30s, --renew-interval longer than 10s and shorter than --duration
minus 10s, and --grace at most --duration minus --renew-interval minus 10s
(so that a renewal has 10s before CMD is asked to stop). A lease that is
not released (kill -9) stays taken until it expires: pick a short
--duration for experiments, e.g. --duration 30s --renew-interval 11s.`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		bf := addBackendFlags(fs, true)
		bf.addReleaseHold(fs)
		bf.addRedisFlags(fs)
		bf.holds = true
		var h holdOptions
		fs.DurationVar(&h.duration, "duration", 0, "the lease duration `DUR` requested on every acquire and renewal "+
			"(default: the driver's, 1h for SQL, 1m for kubernetes, 8h for the others; at least 30s)")
		fs.DurationVar(&h.renew, "renew-interval", 0, "the longest time (`DUR`) between renewals (default 30m or half the duration; more than 10s)")
		fs.DurationVar(&h.acquire, "acquire-timeout", 0, "how long (`DUR`) to wait for a free machine ID (default 1m; 2m for kubernetes)")
		fs.DurationVar(&h.hold, "for", 0, "release the lease and exit 0 `DUR` after machine_id=N is printed (default: hold until SIGINT or SIGTERM); not with CMD")
		fs.DurationVar(&h.grace, "grace", supervise.DefaultGrace, "how long (`DUR`) CMD has to exit after SIGTERM before it gets SIGKILL (only with CMD)")
		fs.StringVar(&h.keyEnv, "key-env", "", "read a base key from the variable `NAME` (e.g. ONCE_KEY) and record its fingerprint beside this holder")
		fs.BoolVar(&h.verbose, "verbose", false, "log every lease operation on standard error (default: none; losses and failures are reported anyway)")
		return fs, func(args []string) int {
			if len(args) > 0 && !fs.dashdash {
				return fs.usageError(c, "unexpected argument %s (a command to run goes after \"--\")", quoteValue(args[0]))
			}
			if fs.dashdash && len(args) == 0 {
				return fs.usageError(c, "\"--\" must be followed by the command to run")
			}
			if fs.dashdash {
				h.cmd = args
			}
			h.graceSet = given(fs, "grace")
			if err := h.check(bf.defaultDuration()); err != nil {
				return fs.usageError(c, "%v", err)
			}
			return hold(e, fs, c, bf, h)
		}
	},
}

type holdOptions struct {
	duration, renew, acquire, hold, grace time.Duration
	graceSet                              bool   // --grace was given
	keyEnv                                string // --key-env: the variable holding the base key
	verbose                               bool
	cmd                                   []string // CMD and its arguments; nil: print the machine ID
}

// check applies the lease manager's rules for its durations (see
// lease.Options) to the flags that set them, with the strategy's default
// lease duration def, so that a bad value is reported by its flag before
// any connection is made.
func (h holdOptions) check(def time.Duration) error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"duration", h.duration}, {"renew-interval", h.renew}, {"acquire-timeout", h.acquire}, {"for", h.hold}, {"grace", h.grace}} {
		if f.d < 0 {
			return fmt.Errorf("--%s %v: must not be negative", f.name, f.d)
		}
	}
	switch {
	case h.cmd == nil && h.graceSet:
		return errors.New("--grace is for a command run with \"-- CMD\"")
	case h.cmd != nil && h.hold > 0:
		return errors.New("--for is for hold without a command: CMD runs until it exits")
	case h.cmd != nil && !supervise.Supported:
		return fmt.Errorf("\"-- CMD\" is not supported on %s", runtime.GOOS)
	case h.cmd != nil && h.grace == 0:
		return errors.New("--grace 0s: CMD needs some time to stop (at least 1ms)")
	}
	d, dName := h.duration, fmt.Sprintf("--duration %v", h.duration)
	if d == 0 {
		d, dName = def, fmt.Sprintf("the default --duration %v", def)
	}
	r, rName := h.renew, fmt.Sprintf("--renew-interval %v", h.renew)
	if r == 0 {
		r, rName = min(driver.DefaultRenewInterval, d/2), fmt.Sprintf("the default --renew-interval %v", min(driver.DefaultRenewInterval, d/2))
	}
	switch {
	case d < driver.MinLeaseDuration:
		return fmt.Errorf("--duration %v: must be at least %v", d, driver.MinLeaseDuration)
	case h.renew == 0:
	case h.renew <= driver.SafetyMargin:
		return fmt.Errorf("--renew-interval %v: must be longer than %v", h.renew, driver.SafetyMargin)
	case h.renew >= d-driver.SafetyMargin:
		return fmt.Errorf("--renew-interval %v: must be shorter than %s minus %v", h.renew, dName, driver.SafetyMargin)
	}
	if h.cmd != nil && h.grace > d-r-driver.SafetyMargin {
		gName := fmt.Sprintf("--grace %v", h.grace)
		if !h.graceSet {
			gName = "the default " + gName
		}
		return fmt.Errorf("%s: must be at most %s minus %s minus %v (%v), so that a renewal has %v before CMD is asked to stop",
			gName, dName, rName, driver.SafetyMargin, d-r-driver.SafetyMargin, driver.SafetyMargin)
	}
	return nil
}

// signalContext is canceled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// leaseOptions are the manager's options for hold: the lease protects w's
// factory, and w follows its events to tell hold when the machine ID may
// be used; each loss goes to standard error; the manager's own log is off
// unless --verbose.
func (h holdOptions) leaseOptions(e *env, who string, w *supervise.Watch) lease.Options {
	errw := e.stderr
	logger := slog.New(slog.DiscardHandler)
	if h.verbose {
		logger = slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return lease.Options{
		LeaseDuration:  h.duration,
		RenewInterval:  h.renew,
		AcquireTimeout: h.acquire,
		Factories:      []*nonce.Factory{w.Factory()},
		Logger:         logger,
		Events: func(ev lease.Event) {
			w.Event(ev)
			if ev.Kind == lease.EventLost {
				fmt.Fprintf(errw, "%s: lease lost: %v\n", who, ev.Err)
			}
		},
	}
}

func hold(e *env, fs *flagSet, c *command, bf *backendFlags, h holdOptions) int {
	who := "once " + c.name
	// The manager's goroutine writes standard error too (losses, the log).
	e = &env{stdin: e.stdin, stdout: e.stdout, stderr: &supervise.SyncWriter{W: e.stderr}}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	// A signal during the start cancels it; afterwards signals are hold's
	// to act on (passed on to CMD), and the manager lives until Close.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	be, err := bf.open(ctx, false)
	if err != nil {
		return fail(e, fs, c, err)
	}
	defer be.Close()
	if d := coord.Lookup(bf.driver); h.acquire == 0 && d != nil {
		h.acquire = d.AcquireTimeout
	}
	var key []byte
	if h.keyEnv != "" {
		v, ok := os.LookupEnv(h.keyEnv)
		if !ok || v == "" {
			errorf(e, who, "--key-env %s: the variable is not set or empty", quoteValue(h.keyEnv))
			return exitFail
		}
		key = []byte(v)
	}
	w, err := supervise.NewWatch(key)
	if err != nil {
		if key != nil {
			err = fmt.Errorf("--key-env %s: %w", quoteValue(h.keyEnv), err)
		}
		errorf(e, who, "%v", err)
		return exitFail
	}
	m, err := startLease(ctx, cancel, sigs, be.Strategy, h.leaseOptions(e, who, w))
	switch {
	case err == nil:
	case errors.Is(err, lease.ErrTimeout):
		errorf(e, who, "no lease within the acquire timeout: %v", err)
		return exitNoLease
	case ctx.Err() != nil:
		errorf(e, who, "interrupted before a lease was held")
		return exitFail
	default:
		errorf(e, who, "%v", be.Reword(err))
		return exitFail
	}

	status := exitOK
	out := supervise.IO{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Who: who}
	if h.cmd != nil {
		status = supervise.Exec(out, w, m, sigs, h.cmd, h.grace)
	} else {
		supervise.Print(out, w, m, sigs, h.hold)
	}
	lostErr := m.Err() // nil while a lease is held; ErrClosed after a signal
	closeCtx, stop := context.WithTimeout(context.Background(), 2*driver.DefaultReleaseTimeout+5*time.Second)
	defer stop()
	if err := m.Close(closeCtx); err != nil {
		errorf(e, who, "releasing the lease: %v", err)
		if h.cmd == nil {
			return exitFail
		}
	}
	if h.cmd == nil && lostErr != nil && !errors.Is(lostErr, lease.ErrClosed) {
		errorf(e, who, "no lease held at the end: %v", lostErr)
		return exitFail
	}
	return status
}

// startLease starts the lease manager; a signal meanwhile cancels ctx
// (with cancel), which ends Start.
func startLease(ctx context.Context, cancel context.CancelFunc, sigs <-chan os.Signal, s driver.Strategy, opts lease.Options) (*lease.Manager, error) {
	started := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-sigs:
			cancel()
		case <-started:
		}
	}()
	m, err := lease.Start(ctx, s, opts)
	close(started)
	<-watched
	if err == nil && ctx.Err() != nil {
		m.Close(context.Background())
		return nil, ctx.Err()
	}
	return m, err
}
