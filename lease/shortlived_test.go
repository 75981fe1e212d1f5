package lease_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// TestShortLivedLeaseBacksOff: a lease lost before a whole renew interval
// has passed since it was acquired is short-lived, and the next
// acquisition backs off first (a retry event); one lost after exactly the
// renew interval is not, and the next acquisition is made at once. A loss
// clears the state file without a warning.
func TestShortLivedLeaseBacksOff(t *testing.T) {
	for _, c := range []struct {
		name  string
		took  time.Duration // the failing renewal's duration; it is due 10s before the renew interval
		retry bool
	}{
		{"lost before the renew interval", 9 * time.Second, true},
		{"lost at the renew interval", 10 * time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs := &capture{}
				r := newRig(t, 512)
				r.opts.Logger = slog.New(logs)
				t0 := time.Now()
				m := r.start()
				var lostAt time.Duration
				r.s.set(func(f *fake) {
					f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
						time.Sleep(c.took)
						lostAt = time.Since(t0)
						return f.mem.Renew(ctx, l, d)
					}
				})
				r.s.mem.Steal(0, time.Hour)
				time.Sleep(driver.DefaultRenewInterval + time.Minute)
				synctest.Wait()
				if m.MachineID() != 1 || lostAt != driver.DefaultRenewInterval-10*time.Second+c.took {
					t.Fatalf("machine ID %d, lost at %v (test setup)", m.MachineID(), lostAt)
				}
				m.Close(context.Background())
				if retries := r.rec.of(lease.EventRetry, lease.OpAcquire); (len(retries) == 1) != c.retry || len(retries) > 1 {
					t.Errorf("retries before the next lease: %+v; want one: %v", retries, c.retry)
				}
				for _, rec := range logs.records() {
					if rec.msg == "lease state file not cleared" {
						t.Errorf("record %q %v after a loss", rec.msg, rec.attrs)
					}
				}
			})
		})
	}
}
