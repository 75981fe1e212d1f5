//go:build oncetest

package lease_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/lease"
)

// TestShortLeases: options marked by lease.ShortLeases take leases below
// the production minimum, with margins scaled to a tenth of the lease.
func TestShortLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		lease.ShortLeases(&r.opts)
		r.opts.LeaseDuration, r.opts.RenewInterval = 2*time.Second, 500*time.Millisecond
		t0 := time.Now()
		m := r.start()
		_, _, vu := r.f.state()
		assert.Equal(t, 1800*time.Millisecond, vu.Sub(t0), "safe window: 2s - 200ms")
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Len(t, r.rec.of(lease.EventEnd, lease.OpRenew), 3, "renewals in 1s: one every 300ms (500ms - 200ms)")
		m.Close(context.Background())
	})
	for _, c := range []struct {
		opts lease.Options
		want string
	}{
		{lease.Options{LeaseDuration: 50 * time.Millisecond}, "LeaseDuration 50ms is below the minimum 100ms"},
		{lease.Options{LeaseDuration: time.Second, RenewInterval: 100 * time.Millisecond}, "RenewInterval 100ms must be longer than 100ms"},
	} {
		lease.ShortLeases(&c.opts)
		_, err := lease.Start(t.Context(), newFake(&journal{}, 1), c.opts)
		require.ErrorIs(t, err, lease.ErrConfig)
		assert.ErrorContains(t, err, c.want)
	}
}
