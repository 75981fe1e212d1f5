package lease_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasenotice"
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
	if e.Kind != lease.EventEnd || (e.Op != lease.OpAcquire && e.Op != lease.OpReclaim) || e.Result != "ok" {
		return
	}
	c.ok = append(c.ok, e)
	id, _, validUntil := c.r.f.state()
	if !c.r.f.generating() || id != e.MachineID {
		c.t.Errorf("%s end event (%s) for machine ID %d delivered while the factory is on %d, generating %v",
			e.Op, e.Source, e.MachineID, id, c.r.f.generating())
	}
	if !e.ValidUntil.Equal(validUntil) {
		c.t.Errorf("%s end event ValidUntil %v, factory's deadline %v", e.Op, e.ValidUntil, validUntil)
	}
	if m := c.m.Load(); m != nil && (m.MachineID() != e.MachineID || m.Err() != nil) {
		c.t.Errorf("%s end event for machine ID %d while MachineID() = %d, Err %v", e.Op, e.MachineID, m.MachineID(), m.Err())
	}
}

// TestAcquiredEventAfterFactoriesActive: the successful acquire (and
// reclaim) end event, and so the "acquired" notice derived from it, is
// delivered only once the factories run on the new lease: at start, after
// a loss, and when reclaiming the state file's lease.
func TestAcquiredEventAfterFactoriesActive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		c := &installCheck{t: t, r: r}
		feed := leasenotice.NewFeed()
		sub := feed.Subscribe(0)
		r.opts.Events = func(e lease.Event) {
			c.hook(e)
			feed.Hook(e)
		}
		m := r.start()
		c.m.Store(m)
		// A consumer printing the ID on the notice finds it usable.
		n := <-sub.C()
		if n.Kind != leasenotice.NoticeAcquired || n.MachineID != m.MachineID() || !r.f.generating() {
			t.Errorf("first notice %+v; factories generating %v", n, r.f.generating())
		}
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
		feed.Close()

		var got []string
		for _, e := range c.ok {
			got = append(got, string(e.Op)+"/"+string(e.Source))
		}
		if len(got) != 3 || got[0] != "acquire/initial" || got[1] != "acquire/reacquire" || got[2] != "reclaim/initial" {
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
		if len(ev) != 2 || ev[0].Result != "illegal_ttl" || ev[0].MachineID != 0 || ev[1].Result != "ok" || ev[1].MachineID != 0 {
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
