package lease_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// listing is the rig's strategy with List: Memory's, unless list is set.
type listing struct {
	*fake
	list func(ctx context.Context) ([]driver.Slot, error)
}

func (l listing) List(ctx context.Context) ([]driver.Slot, error) {
	if l.list != nil {
		return l.list(ctx)
	}
	return l.mem.List(ctx)
}

// pool returns the EventPool events recorded so far.
func (r *rig) pool() []lease.Event {
	var out []lease.Event
	for _, e := range r.rec.events() {
		if e.Kind == lease.EventPool {
			out = append(out, e)
		}
	}
	return out
}

// TestPoolFreeIDs: with a strategy that lists the held IDs, the manager
// counts the free ones after the acquisition and after each renewal, and
// warns once fewer than LowFreeIDs are free.
func TestPoolFreeIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		c := &capture{}
		r.opts.Logger = slog.New(c)
		for id := range 400 {
			r.s.mem.Steal(id, 10*time.Hour)
		}
		m, err := lease.Start(r.with(t.Context()), listing{fake: r.s}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		ev := r.pool()
		if len(ev) != 1 || ev[0].FreeIDs != 111 || ev[0].Err != nil || ev[0].MachineID != 400 {
			t.Fatalf("after Start: pool events %+v, want one counting 111 free IDs", ev)
		}
		if w := c.atLeast(slog.LevelWarn); len(w) != 0 {
			t.Errorf("warned with 111 free IDs: %v", w)
		}

		for id := 401; id < 461; id++ { // 51 left
			r.s.mem.Steal(id, 10*time.Hour)
		}
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		ev = r.pool()
		if len(ev) != 2 || ev[1].FreeIDs != 51 || ev[1].Err != nil {
			t.Fatalf("after a renewal: pool events %+v, want a second one: 51 free, low", ev)
		}
		w := c.atLeast(slog.LevelWarn)
		if len(w) != 1 || w[0].attrs["free_ids"] != "51" || w[0].attrs["low_free_ids"] != "64" {
			t.Errorf("warnings %v, want one with free_ids=51 low_free_ids=64", w)
		}
	})
}

// TestPoolNotCountedWithoutLister: a strategy without List gets no pool
// events, and a negative LowFreeIDs never warns.
func TestPoolNotCountedWithoutLister(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		if ev := r.pool(); len(ev) != 0 {
			t.Errorf("pool events without a Lister: %+v", ev)
		}
		m.Close(context.Background())

		r = newRig(t, 512)
		r.opts.LowFreeIDs = -1
		c := &capture{}
		r.opts.Logger = slog.New(c)
		for id := range 511 {
			r.s.mem.Steal(id, time.Hour)
		}
		m, err := lease.Start(r.with(t.Context()), listing{fake: r.s}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		if ev := r.pool(); len(ev) != 1 || ev[0].FreeIDs != 0 || ev[0].Err != nil {
			t.Errorf("pool events %+v, want 0 free, not low", ev)
		}
		if w := c.atLeast(slog.LevelWarn); len(w) != 0 {
			t.Errorf("warned with LowFreeIDs -1: %v", w)
		}
	})
}

// TestPoolCountFailureHarmless: a List that fails, or hangs ignoring its
// context, leaves the count unknown and nothing else: the lease is held
// and renewed on schedule.
func TestPoolCountFailureHarmless(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		unblock := make(chan struct{})
		defer close(unblock)
		var calls atomic.Int32
		m, err := lease.Start(r.with(t.Context()), listing{fake: r.s, list: func(context.Context) ([]driver.Slot, error) {
			if calls.Add(1) == 1 {
				return nil, errRetry
			}
			<-unblock // ignores its context
			return nil, nil
		}}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		for range 3 {
			time.Sleep(driver.DefaultRenewInterval)
			synctest.Wait()
		}
		ev := r.pool()
		if len(ev) != 4 || !errors.Is(ev[0].Err, driver.ErrRetry) {
			t.Fatalf("pool events %+v, want 4, the first failed with ErrRetry", ev)
		}
		for _, e := range ev[1:] {
			if !errors.Is(e.Err, lease.ErrTimeout) || e.Duration != driver.DefaultReleaseTimeout {
				t.Errorf("pool event %+v, want ErrTimeout after the %v release timeout", e, driver.DefaultReleaseTimeout)
			}
		}
		if n := len(r.rec.of(lease.EventEnd, lease.OpRenew)); n != 3 || m.Err() != nil {
			t.Errorf("%d renewals in 90 minutes, Err %v", n, m.Err())
		}
	})
}

// TestPoolNotCountedPastTheNextRenewal: a renewal that took longer than
// the renew interval leaves no time to count before the next renewal is
// due; the manager does not list, and says so, instead of timing out a
// List it gave no time.
func TestPoolNotCountedPastTheNextRenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		var lists atomic.Int32
		var slow atomic.Bool
		slow.Store(true)
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				if slow.Swap(false) {
					time.Sleep(driver.DefaultRenewInterval + time.Minute)
				}
				return f.mem.Renew(ctx, l, d)
			}
		})
		m, err := lease.Start(r.with(t.Context()), listing{fake: r.s, list: func(ctx context.Context) ([]driver.Slot, error) {
			lists.Add(1)
			return r.s.mem.List(ctx)
		}}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		// The renewal due at 30m answers at 61m; the next is due at once.
		time.Sleep(2*driver.DefaultRenewInterval + 2*time.Minute)
		synctest.Wait()
		ev := r.pool()
		if len(ev) != 3 || ev[0].Err != nil || ev[2].Err != nil {
			t.Fatalf("pool events %+v, want three: counted after Start, not after the slow renewal, counted after the next", ev)
		}
		if !errors.Is(ev[1].Err, lease.ErrTimeout) || !strings.Contains(ev[1].Err.Error(), "no time left before the next renewal") {
			t.Errorf("pool event after the slow renewal: %v; want ErrTimeout saying no time was left", ev[1].Err)
		}
		if n := lists.Load(); n != 2 {
			t.Errorf("List called %d times, want 2 (not after the slow renewal)", n)
		}
	})
}

// ranged is listing restricted to the machine IDs r ([driver.Ranged]).
type ranged struct {
	listing
	r driver.IDRange
}

func (s ranged) MachineIDs() driver.IDRange { return s.r }

// TestPoolFreeIDsInRange: for a strategy restricted to a range of IDs,
// the manager counts the free IDs within the range, and by default warns
// below an eighth of it.
func TestPoolFreeIDsInRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		c := &capture{}
		r.opts.Logger = slog.New(c)
		for id := range 400 { // outside the range: not counted
			r.s.mem.Steal(id, 10*time.Hour)
		}
		for id := 401; id < 406; id++ {
			r.s.mem.Steal(id, 10*time.Hour)
		}
		s := ranged{listing{fake: r.s}, driver.IDRange{Min: 400, Max: 415}}
		m, err := lease.Start(r.with(t.Context()), s, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		ev := r.pool()
		if len(ev) != 1 || ev[0].FreeIDs != 10 || ev[0].Err != nil || ev[0].MachineID != 400 {
			t.Fatalf("after Start: pool events %+v, want one counting 10 free IDs of the 16 in 400..415", ev)
		}
		if w := c.atLeast(slog.LevelWarn); len(w) != 0 {
			t.Errorf("warned with 10 of 16 IDs free: %v", w)
		}
		for id := 406; id < 415; id++ { // 1 left
			r.s.mem.Steal(id, 10*time.Hour)
		}
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		ev = r.pool()
		if len(ev) != 2 || ev[1].FreeIDs != 1 {
			t.Fatalf("after a renewal: pool events %+v, want a second one: 1 free", ev)
		}
		w := c.atLeast(slog.LevelWarn)
		if len(w) != 1 || w[0].attrs["free_ids"] != "1" || w[0].attrs["low_free_ids"] != "2" {
			t.Errorf("warnings %v, want one with free_ids=1 low_free_ids=2", w)
		}
	})
}
