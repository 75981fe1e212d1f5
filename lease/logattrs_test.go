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

// describedFake is a fake that describes where it holds leases
// (fmt.Stringer), as sqllease names its table.
type describedFake struct{ *fake }

func (describedFake) String() string { return "table test.leases" }

// TestEndRecordAttrs: the end record of a granted acquisition carries the
// granted TTL and the coordinator as the strategy describes itself; a
// failed attempt's carries neither, and a renewal's no coordinator.
func TestEndRecordAttrs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &capture{}
		r := newRig(t, 512)
		r.opts.Logger = slog.New(logs)
		n := 0
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				if n++; n == 1 {
					return driver.Lease{}, errRetry
				}
				return f.mem.Acquire(ctx, d)
			}
		})
		m, err := lease.Start(r.with(t.Context()), describedFake{r.s}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(driver.DefaultRenewInterval)
		synctest.Wait()
		m.Close(context.Background())
		var failed, done, renewed int
		for _, rec := range logs.records() {
			_, ttl := rec.attrs["granted_ttl"]
			_, coord := rec.attrs["coordinator"]
			switch rec.msg {
			case "lease acquire failed":
				failed++
				if ttl || coord {
					t.Errorf("failed acquire record %v: granted_ttl or coordinator set", rec.attrs)
				}
			case "lease acquire done":
				done++
				if rec.attrs["granted_ttl"] != driver.DefaultLeaseDuration.String() || rec.attrs["coordinator"] != "table test.leases" {
					t.Errorf("acquire record %v, want granted_ttl %v and the coordinator", rec.attrs, driver.DefaultLeaseDuration)
				}
			case "lease renewed":
				renewed++
				if !ttl || coord {
					t.Errorf("renewal record %v, want granted_ttl and no coordinator", rec.attrs)
				}
			}
		}
		if failed != 1 || done != 1 || renewed != 1 {
			t.Errorf("%d failed, %d done, %d renewed records; want 1 each:\n%s", failed, done, renewed, logs)
		}
	})
}
