package lease_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// installCheck is an event hook that checks, when a successful acquire or
// reclaim end event is delivered, that the factories already run on that
// lease and that the manager (once known) reports its machine ID.
type installCheck struct {
	t  *testing.T
	r  *rig
	m  atomic.Pointer[lease.Manager]
	ok []lease.Event // successful acquire/reclaim end events seen
}

func (c *installCheck) hook(e lease.Event) {
	c.r.rec.hook(e)
	if e.Kind != lease.EventEnd || (e.Op != lease.OpAcquire && e.Op != lease.OpReclaim) || e.Err != nil {
		return
	}
	c.ok = append(c.ok, e)
	id, _, validUntil := c.r.f.state()
	if !c.r.f.generating() || id != e.MachineID {
		c.t.Errorf("%s end event for machine ID %d delivered while the factory is on %d, generating %v",
			e.Op, e.MachineID, id, c.r.f.generating())
	}
	// The factory's deadline is the lease's safe window: TTL minus the
	// margin, counted from when the request was sent (Duration before
	// the event; time stands still in the bubble).
	if want := time.Now().Add(-e.Duration + e.TTL - driver.SafetyMargin); !validUntil.Equal(want) {
		c.t.Errorf("%s end event: factory's deadline %v, want TTL %v - margin from the request (%v)", e.Op, validUntil, e.TTL, want)
	}
	if m := c.m.Load(); m != nil && (m.MachineID() != e.MachineID || m.Err() != nil) {
		c.t.Errorf("%s end event for machine ID %d while MachineID() = %d, Err %v", e.Op, e.MachineID, m.MachineID(), m.Err())
	}
}

// TestAcquiredEventAfterFactoriesActive: the successful acquire (and
// reclaim) end event is delivered only once the factories run on the new
// lease: at start, after a loss, and when reclaiming the state file's
// lease.
func TestAcquiredEventAfterFactoriesActive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		c := &installCheck{t: t, r: r}
		r.opts.Events = c.hook
		m := r.start()
		c.m.Store(m)
		// Activation precedes the event in the journal, too.
		iAct, _, _ := r.j.find(0, "activate")
		if iEv, _, ok := r.j.find(0, "event end acquire ok"); !ok || iEv < iAct {
			t.Errorf("acquire end event before activation:\n%s", r.j)
		}

		// After a loss.
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		if m.MachineID() != 1 {
			t.Fatalf("not re-acquired: machine ID %d", m.MachineID())
		}

		// Reclaimed after a crash.
		crash(t, r, m)
		c.m.Store(nil)
		m = r.start()
		c.m.Store(m)
		m.Close(context.Background())

		var got []string
		for _, e := range c.ok {
			got = append(got, fmt.Sprintf("%s/%d", e.Op, e.MachineID))
		}
		if len(got) != 3 || got[0] != "acquire/0" || got[1] != "acquire/1" || got[2] != "reclaim/1" {
			t.Errorf("successful acquire/reclaim end events %v", got)
		}
	})
}

// TestUnusableLeaseEndEventNotOK: a lease granted with an illegal TTL
// never reports "ok": its end event carries the reason, then it is
// released, and the next attempt's lease is the one reported acquired.
func TestUnusableLeaseEndEventNotOK(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		c := &installCheck{t: t, r: r}
		r.opts.Events = c.hook
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				n++
				if n == 1 {
					return f.mem.Acquire(ctx, 20*time.Second)
				}
				return f.mem.Acquire(ctx, d)
			}
		})
		m := r.start()
		ev := r.rec.of(lease.EventEnd, lease.OpAcquire)
		if len(ev) != 2 || !errors.Is(ev[0].Err, lease.ErrIllegalTTL) || ev[0].MachineID != 0 || ev[1].Err != nil || ev[1].MachineID != 0 {
			t.Fatalf("acquire end events %+v", ev)
		}
		iEnd, _, _ := r.j.find(0, "event end acquire illegal_ttl")
		if iRel, _, ok := r.j.find(0, "strategy release"); !ok || iRel < iEnd {
			t.Errorf("release of the unusable lease before its end event:\n%s", r.j)
		}
		if len(c.ok) != 1 || m.MachineID() != 0 { // released, so free again
			t.Errorf("ok events %d, machine ID %d", len(c.ok), m.MachineID())
		}
		m.Close(context.Background())
	})
}
