package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
)

var leaseHoldCmd = &command{
	name:    "lease hold",
	usage:   "lease hold --driver D [--mode hash|key] --dsn DSN [--table T] [--duration DUR] [--renew-interval DUR] [--acquire-timeout DUR] [--release-hold DUR] [--for DUR] [--verbose]",
	summary: "hold a machine-ID lease (renewing it) and print machine_id=N",
	about: `Starts a lease manager on the coordinator. As soon as the lease is held it
prints "machine_id=N" on its own line (and flushes), then holds the lease,
renewing it, for --for DUR (default: until SIGINT or SIGTERM), then releases
it and exits 0. Should the lease be lost meanwhile, the reason goes to
standard error and, once a new lease is held, another "machine_id=N" line is
printed; if none is held at the end the exit status is 1.

If no lease can be had within the acquire timeout (every ID held, or the
coordinator unreachable all along), the reason goes to standard error and
the exit status is 3. Any other failure (bad DSN, missing table, unsupported
server) exits 1; invalid durations are a bad command line (exit 2).

The durations are the lease manager's (lease.Options): --duration must be
at least 30s, --renew-interval longer than 10s and shorter than --duration
minus 10s. A lease that is not released (kill -9) stays
taken until it expires: pick a short --duration for experiments, e.g.
--duration 30s --renew-interval 11s.`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		bf := addBackendFlags(fs, true)
		bf.addReleaseHold(fs)
		var h holdOptions
		fs.DurationVar(&h.duration, "duration", 0, "the lease duration `DUR` requested on every acquire and renewal (default 8h, at least 30s)")
		fs.DurationVar(&h.renew, "renew-interval", 0, "the longest time (`DUR`) between renewals (default 30m or half the duration; more than 10s)")
		fs.DurationVar(&h.acquire, "acquire-timeout", 0, "how long (`DUR`) to wait for a free machine ID (default 1m)")
		fs.DurationVar(&h.hold, "for", 0, "release the lease and exit 0 after `DUR` (default: hold until SIGINT or SIGTERM)")
		fs.BoolVar(&h.verbose, "verbose", false, "log every lease operation on standard error (default: none; losses and failures are reported anyway)")
		return fs, func(args []string) int {
			if len(args) > 0 {
				return fs.usageError(c, "unexpected argument %s", quoteValue(args[0]))
			}
			if err := h.check(); err != nil {
				return fs.usageError(c, "%v", err)
			}
			return hold(e, fs, c, bf, h)
		}
	},
}

type holdOptions struct {
	duration, renew, acquire, hold time.Duration
	verbose                        bool
}

// check applies the lease manager's rules for its durations (see
// lease.Options) to the flags that set them, so that a bad value is
// reported by its flag before any connection is made.
func (h holdOptions) check() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"duration", h.duration}, {"renew-interval", h.renew}, {"acquire-timeout", h.acquire}, {"for", h.hold}} {
		if f.d < 0 {
			return fmt.Errorf("--%s %v: must not be negative", f.name, f.d)
		}
	}
	d, dName := h.duration, fmt.Sprintf("--duration %v", h.duration)
	if d == 0 {
		d, dName = lease.DefaultLeaseDuration, fmt.Sprintf("the default --duration %v", lease.DefaultLeaseDuration)
	}
	switch {
	case d < lease.MinLeaseDuration:
		return fmt.Errorf("--duration %v: must be at least %v", d, lease.MinLeaseDuration)
	case h.renew == 0:
	case h.renew <= lease.SafetyMargin:
		return fmt.Errorf("--renew-interval %v: must be longer than %v", h.renew, lease.SafetyMargin)
	case h.renew >= d-lease.SafetyMargin:
		return fmt.Errorf("--renew-interval %v: must be shorter than %s minus %v", h.renew, dName, lease.SafetyMargin)
	}
	return nil
}

// signalContext is canceled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// lockedWriter serialises writes from the manager's goroutine and ours.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if f, ok := l.w.(interface{ Flush() error }); ok && err == nil {
		err = f.Flush()
	}
	return n, err
}

// leaseOptions are the manager's options for hold: it prints each
// machine ID as the manager hears of it (OnAcquired) and each loss; the
// manager's own log is off unless --verbose.
func (h holdOptions) leaseOptions(e *env, who string) (lease.Options, error) {
	out := &lockedWriter{w: e.stdout}
	errw := &lockedWriter{w: e.stderr}
	logger := slog.New(slog.DiscardHandler)
	if h.verbose {
		logger = slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	fac, err := nonce.New(nonce.Config{AwaitLease: true})
	if err != nil {
		return lease.Options{}, err
	}
	return lease.Options{
		LeaseDuration:  h.duration,
		RenewInterval:  h.renew,
		AcquireTimeout: h.acquire,
		Factories:      []lease.Factory{fac},
		Logger:         logger,
		OnAcquired:     func(id int) { fmt.Fprintf(out, "machine_id=%d\n", id) },
		OnLost:         func(reason error) { fmt.Fprintf(errw, "%s: lease lost: %v\n", who, reason) },
	}, nil
}

func hold(e *env, fs *flagSet, c *command, bf *backendFlags, h holdOptions) int {
	who := "once " + c.name
	ctx, cancel := signalContext()
	defer cancel()
	be, err := bf.open(ctx, false)
	if err != nil {
		return fail(e, fs, c, err)
	}
	defer be.close()

	opts, err := h.leaseOptions(e, who)
	if err != nil {
		errorf(e, who, "%v", err)
		return exitFail
	}
	m, err := lease.Start(ctx, be.strategy, opts)
	switch {
	case err == nil:
	case errors.Is(err, lease.ErrTimeout):
		errorf(e, who, "no lease within the acquire timeout: %v", err)
		return exitNoLease
	case ctx.Err() != nil:
		errorf(e, who, "interrupted before a lease was held")
		return exitFail
	default:
		errorf(e, who, "%v", err)
		return exitFail
	}

	var until <-chan time.Time
	if h.hold > 0 {
		t := time.NewTimer(h.hold)
		defer t.Stop()
		until = t.C
	}
	select {
	case <-ctx.Done():
	case <-until:
	case <-m.Done():
	}
	lostErr := m.Err() // nil while a lease is held; ErrClosed after a signal
	closeCtx, stop := context.WithTimeout(context.Background(), 2*lease.DefaultReleaseTimeout+5*time.Second)
	defer stop()
	closeErr := m.Close(closeCtx)
	if closeErr != nil {
		errorf(e, who, "releasing the lease: %v", closeErr)
		return exitFail
	}
	if lostErr != nil && !errors.Is(lostErr, lease.ErrClosed) {
		errorf(e, who, "no lease held at the end: %v", lostErr)
		return exitFail
	}
	return exitOK
}
