package lease_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// TestPoolLowBoundary: exactly LowFreeIDs free machine IDs is not low
// (DEBUG); one fewer is (WARN).
func TestPoolLowBoundary(t *testing.T) {
	for _, c := range []struct {
		held int // besides the manager's own
		low  bool
	}{{447, false}, {448, true}} {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, 512)
			logs := &capture{}
			r.opts.Logger = slog.New(logs)
			for id := range c.held {
				r.s.mem.Steal(id, 10*time.Hour)
			}
			m, err := lease.Start(r.with(t.Context()), listing{fake: r.s}, r.opts)
			if err != nil {
				t.Fatal(err)
			}
			m.Close(context.Background())
			free := 512 - 1 - c.held
			ev := r.pool()
			w := logs.atLeast(slog.LevelWarn)
			if len(ev) != 1 || ev[0].FreeIDs != free || (len(w) == 1) != c.low || len(w) > 1 {
				t.Errorf("%d free of LowFreeIDs 64: pool events %+v, warnings %v; want low: %v", free, ev, w, c.low)
			}
		})
	}
}

// TestPoolNotCountedWhenTheRenewalIsDue: a renewal that took until the
// next one is due leaves no time to count the pool: the count fails at
// once, naming the renewal, and logs at INFO.
func TestPoolNotCountedWhenTheRenewalIsDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		logs := &capture{}
		r.opts.Logger = slog.New(logs)
		m, err := lease.Start(r.with(t.Context()), listing{fake: r.s}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		renewAfter := driver.DefaultRenewInterval - driver.SafetyMargin
		renewals := 0
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				if renewals++; renewals == 1 {
					time.Sleep(renewAfter) // the next renewal is due as this one returns
				}
				return f.mem.Renew(ctx, l, d)
			}
		})
		time.Sleep(2*renewAfter + time.Second)
		synctest.Wait()
		m.Close(context.Background())
		ev := r.pool()
		if len(ev) < 2 || ev[1].Err == nil || !strings.Contains(ev[1].Err.Error(), "no time left before the next renewal") {
			t.Errorf("pool events %+v, want the second to fail for the renewal that is due", ev)
		}
		var levels []slog.Level
		for _, rec := range logs.records() {
			if rec.msg == "lease pool not counted" {
				levels = append(levels, rec.level)
			}
		}
		if len(levels) != 1 || levels[0] != slog.LevelInfo {
			t.Errorf("\"lease pool not counted\" records at %v, want one INFO:\n%s", levels, logs)
		}
	})
}
