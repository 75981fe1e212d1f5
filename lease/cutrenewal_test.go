package lease_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// TestRenewalCutByLeaseLost: a renewal in flight when the application
// signals a loss (LeaseLost) ends canceled, its error matching the loss's
// reason (ErrExternal), whether the strategy returns with its context's
// error or is abandoned.
func TestRenewalCutByLeaseLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		entered := make(chan struct{})
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				close(entered)
				<-ctx.Done()
				return driver.Lease{}, errRetry
			}
		})
		time.Sleep(driver.DefaultRenewInterval - driver.SafetyMargin) // the renewal is due
		<-entered
		m.LeaseLost("alert (test)")
		synctest.Wait()
		m.Close(context.Background())
		ev := r.rec.of(lease.EventEnd, lease.OpRenew)
		if len(ev) != 1 || !errors.Is(ev[0].Err, lease.ErrExternal) || lease.ResultOf(ev[0].Err) != "external" {
			t.Errorf("renew end events %+v, want one whose Err matches ErrExternal", ev)
		}
	})
}
