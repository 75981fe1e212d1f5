package lease_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// advising is the rig's strategy advising a lease duration.
type advising struct {
	*fake
	d time.Duration
}

func (a advising) DefaultLeaseDuration() time.Duration { return a.d }

// TestDurationDefaulter: a strategy's advised duration replaces the 8h
// default, not a duration the options set.
func TestDurationDefaulter(t *testing.T) {
	for _, c := range []struct {
		opts, want time.Duration
	}{
		{0, driver.DefaultDBLeaseDuration},
		{2 * time.Hour, 2 * time.Hour},
	} {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, 512)
			r.opts.LeaseDuration = c.opts
			m, err := lease.Start(r.with(t.Context()), advising{r.s, driver.DefaultDBLeaseDuration}, r.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(context.Background())
			if ev := r.rec.of(lease.EventEnd, lease.OpAcquire); len(ev) != 1 || ev[0].TTL != c.want {
				t.Errorf("LeaseDuration %v: acquired %+v, want a %v lease", c.opts, ev, c.want)
			}
		})
	}
}

// TestOutageRiddenOut measures how long the factories keep generating when
// the coordinator stops answering, for the 8h default and the 1h lease a
// database-backed strategy advises: from just after a renewal (the whole
// safe window) and from just before the next one (the lease minus the
// renewal interval). The renewal interval is 30 min for both.
func TestOutageRiddenOut(t *testing.T) {
	for _, c := range []struct {
		lease, outageAfter, want time.Duration
	}{
		{driver.DefaultLeaseDuration, time.Second, 8*time.Hour - 10*time.Second - time.Second},
		{driver.DefaultLeaseDuration, 30*time.Minute - 11*time.Second, 7*time.Hour + 30*time.Minute + time.Second},
		{driver.DefaultDBLeaseDuration, time.Second, time.Hour - 10*time.Second - time.Second},
		{driver.DefaultDBLeaseDuration, 30*time.Minute - 11*time.Second, 30*time.Minute + time.Second},
	} {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, 512)
			r.opts.LeaseDuration = c.lease
			m := r.start()
			time.Sleep(c.outageAfter)
			down := time.Now()
			r.s.set(func(f *fake) { // every call fails from now on
				f.renew = func(context.Context, driver.Lease, time.Duration) (driver.Lease, error) {
					return driver.Lease{}, errRetry
				}
				f.acquire = func(context.Context, time.Duration) (driver.Lease, error) { return driver.Lease{}, errRetry }
			})
			for r.f.generating() {
				time.Sleep(time.Second)
			}
			rode := time.Since(down)
			t.Logf("%v lease, coordinator down %v after a renewal: generation stopped %v later", c.lease, c.outageAfter, rode)
			if rode < c.want-time.Second || rode > c.want+time.Second {
				t.Errorf("%v lease, outage from %v after a renewal: generating for %v, want %v", c.lease, c.outageAfter, rode, c.want)
			}
			m.Close(context.Background())
		})
	}
}
