package lease_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// capture is a slog handler that keeps every record, at every level.
type capture struct {
	mu   sync.Mutex
	recs []capturedRecord
}

type capturedRecord struct {
	at    time.Time
	level slog.Level
	msg   string
	attrs map[string]string
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *capture) WithGroup(string) slog.Handler            { return c }

func (c *capture) Handle(_ context.Context, r slog.Record) error {
	rec := capturedRecord{at: r.Time, level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	c.mu.Lock()
	c.recs = append(c.recs, rec)
	c.mu.Unlock()
	return nil
}

func (c *capture) records() []capturedRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]capturedRecord(nil), c.recs...)
}

// atLeast returns the records at level or above.
func (c *capture) atLeast(level slog.Level) []capturedRecord {
	var out []capturedRecord
	for _, r := range c.records() {
		if r.level >= level {
			out = append(out, r)
		}
	}
	return out
}

func (c *capture) String() string {
	var b strings.Builder
	for _, r := range c.records() {
		fmt.Fprintf(&b, "  %s %s %v\n", r.level, r.msg, r.attrs)
	}
	return b.String()
}

// TestShutdownDuringRenewalLogsNoWarning: a renewal in flight when the
// manager closes is canceled by our own shutdown, which is not a failure:
// its end record is DEBUG ("canceled by shutdown", result=canceled),
// whether the strategy returns at once with the context's error or ignores
// the context and is abandoned, and nothing is logged at WARN or above.
func TestShutdownDuringRenewalLogsNoWarning(t *testing.T) {
	for _, c := range []struct {
		name  string
		renew func(ctx context.Context) error
	}{
		{"strategy returns the context error", func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("%w: %w", driver.ErrRetry, ctx.Err()) // how sqllease and Memory report it
		}},
		{"strategy ignores the context", func(ctx context.Context) error {
			time.Sleep(time.Second)
			return fmt.Errorf("%w: %w", driver.ErrRetry, ctx.Err())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs := &capture{}
				r := newRig(t, 512)
				r.opts.Logger = slog.New(logs)
				m := r.start()
				entered := make(chan struct{})
				r.s.set(func(f *fake) {
					f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
						close(entered)
						return driver.Lease{}, c.renew(ctx)
					}
				})
				time.Sleep(30*time.Minute - 10*time.Second) // the renewal is due
				<-entered
				if err := m.Close(context.Background()); err != nil {
					t.Fatalf("Close: %v", err)
				}
				if bad := logs.atLeast(slog.LevelWarn); len(bad) != 0 {
					t.Errorf("records at WARN or above during a normal shutdown:\n%s", logs)
				}
				var end *capturedRecord
				for _, rec := range logs.records() {
					if rec.attrs["source"] == "scheduled" && rec.attrs["result"] != "" {
						end = &rec
					}
				}
				if end == nil || end.level != slog.LevelDebug || end.attrs["result"] != "canceled" || end.msg != "lease renew canceled by shutdown" {
					t.Errorf("renew end record %+v, want DEBUG result=canceled:\n%s", end, logs)
				}
				if ev := r.rec.of(lease.EventEnd, lease.OpRenew); len(ev) != 1 || !errors.Is(ev[0].Err, lease.ErrClosed) {
					t.Errorf("renew end events %+v, want one with an Err matching ErrClosed", ev)
				}
				if ev := r.rec.of(lease.EventEnd, lease.OpRelease); len(ev) != 1 || ev[0].Err != nil {
					t.Errorf("release events %+v", ev)
				}
			})
		})
	}
}

// TestFirstAcquireRetriesLogLevels: while the pool is exhausted (then
// contended) at start, each failed attempt is DEBUG and each retry INFO,
// but for exactly one WARN: the first retry that runs after half the
// acquire timeout. A later loss is still an ERROR.
func TestFirstAcquireRetriesLogLevels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &capture{}
		r := newRig(t, 512)
		r.opts.Logger = slog.New(logs)
		t0 := time.Now()
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				n++
				switch {
				case time.Since(t0) >= 45*time.Second:
					return f.mem.Acquire(ctx, d)
				case n%2 == 0:
					return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrConflict)
				}
				return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
			}
		})
		m := r.start() // default acquire timeout: 60s
		retries := r.rec.of(lease.EventRetry, lease.OpAcquire)
		if len(retries) < 5 {
			t.Fatalf("%d retries before the lease was acquired (test setup)", len(retries))
		}
		var warns, infos, debugs int
		for _, rec := range logs.records() {
			switch {
			case rec.msg == "lease acquire start":
			case rec.attrs["operation"] == "acquire": // a retry
				switch rec.level {
				case slog.LevelWarn:
					warns++
					delay, _ := time.ParseDuration(rec.attrs["delay"])
					if wake := rec.at.Add(delay).Sub(t0); wake < 30*time.Second {
						t.Errorf("WARN for a retry %v after start, before half the 60s budget", wake)
					}
				case slog.LevelInfo:
					infos++
				default:
					t.Errorf("retry record at %v", rec.level)
				}
			case rec.attrs["result"] == "exhausted" || rec.attrs["result"] == "conflict":
				if rec.level != slog.LevelDebug {
					t.Errorf("failed attempt %q at %v, want DEBUG", rec.msg, rec.level)
				}
				debugs++
			}
		}
		if warns != 1 || infos != len(retries)-1 || debugs != len(retries) {
			t.Errorf("%d WARN and %d INFO retry records, %d DEBUG failures for %d retries; want 1 WARN:\n%s", warns, infos, debugs, len(retries), logs)
		}
		if bad := logs.atLeast(slog.LevelWarn); len(bad) != 1 {
			t.Errorf("%d records at WARN or above during start, want 1:\n%s", len(bad), logs)
		}

		// A real loss is an ERROR.
		r.s.set(func(f *fake) { f.acquire = nil })
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		var lost []capturedRecord
		for _, rec := range logs.records() {
			if rec.msg == "lease lost" {
				lost = append(lost, rec)
			}
		}
		if len(lost) != 1 || lost[0].level != slog.LevelError {
			t.Errorf("lost records %+v, want one ERROR", lost)
		}
		m.Close(context.Background())
	})
}

// TestFirstAcquireWithoutTimeoutWarnsOnce: with no acquire timeout
// (negative) the single WARN
// comes with the first retry that runs after half the default acquire
// timeout (logged before that half has passed).
func TestFirstAcquireWithoutTimeoutWarnsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &capture{}
		r := newRig(t, 512)
		r.opts.Logger = slog.New(logs)
		r.opts.AcquireTimeout = -1
		t0 := time.Now()
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				if time.Since(t0) < 10*time.Minute {
					return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
				}
				return f.mem.Acquire(ctx, d)
			}
		})
		m := r.start()
		warn := logs.atLeast(slog.LevelWarn)
		delay := time.Duration(0)
		if len(warn) == 1 {
			delay, _ = time.ParseDuration(warn[0].attrs["delay"])
		}
		if len(warn) != 1 || warn[0].at.Add(delay).Sub(t0) < lease.DefaultAcquireTimeout/2 || warn[0].at.Sub(t0) >= lease.DefaultAcquireTimeout/2 {
			t.Errorf("WARN records %+v, want one, logged before %v for a retry after it:\n%s", warn, lease.DefaultAcquireTimeout/2, logs)
		}
		m.Close(context.Background())
	})
}

// TestStartTimeoutWarnedFirst: a Start that gives up after the acquire
// timeout has logged exactly one WARN before (and returns the error).
func TestStartTimeoutWarnedFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &capture{}
		r := newRig(t, 512)
		r.opts.Logger = slog.New(logs)
		r.s.set(func(f *fake) {
			f.acquire = func(context.Context, time.Duration) (driver.Lease, error) {
				return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
			}
		})
		if _, err := lease.Start(r.with(t.Context()), r.s, r.opts); err == nil {
			t.Fatal("Start succeeded on an exhausted pool")
		}
		if warn := logs.atLeast(slog.LevelWarn); len(warn) != 1 || warn[0].level != slog.LevelWarn {
			t.Errorf("records at WARN or above: %+v, want one WARN:\n%s", warn, logs)
		}
	})
}

// TestRenewFailureWarns: a failed renewal attempt is a WARN even when its
// class is transient (retry), unlike a failed acquire or reclaim.
func TestRenewFailureWarns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &capture{}
		r := newRig(t, 512)
		r.opts.Logger = slog.New(logs)
		m := r.start()
		n := 0
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				if n++; n == 1 {
					return driver.Lease{}, errRetry
				}
				return f.mem.Renew(ctx, l, d)
			}
		})
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		m.Close(context.Background())
		var failed []capturedRecord
		for _, rec := range logs.records() {
			if rec.msg == "lease renew failed" {
				failed = append(failed, rec)
			}
		}
		if len(failed) != 1 || failed[0].level != slog.LevelWarn || failed[0].attrs["result"] != "retry" {
			t.Errorf("renew failure records %+v, want one WARN with result=retry:\n%s", failed, logs)
		}
	})
}

// TestFirstAcquireWarnsAtHalfTheTimeout: the WARN comes with the first
// retry that runs at or after half the (default) acquire timeout, one that
// runs exactly then included. Here the eighth attempt fails 19s after
// start, and its retry waits the renew interval, 11s (the backoff's
// limit without a timeout): it runs at 30s.
func TestFirstAcquireWarnsAtHalfTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &capture{}
		r := newRig(t, 512)
		r.opts.Logger = slog.New(logs)
		r.opts.AcquireTimeout = -1
		r.opts.RenewInterval = 11 * time.Second
		t0 := time.Now()
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				switch n++; {
				case n == 8:
					time.Sleep(time.Until(t0.Add(19 * time.Second)))
				case n > 8:
					return f.mem.Acquire(ctx, d)
				}
				return driver.Lease{}, fmt.Errorf("%w (test)", driver.ErrExhausted)
			}
		})
		m := r.start()
		m.Close(context.Background())
		warn := logs.atLeast(slog.LevelWarn)
		if len(warn) != 1 || warn[0].at.Sub(t0) != 19*time.Second || warn[0].attrs["delay"] != "11s" {
			t.Errorf("WARN records %+v, want one at 19s for the retry 11s later:\n%s", warn, logs)
		}
	})
}
