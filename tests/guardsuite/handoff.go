package guardsuite

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/nonce"
)

// HandoffTimestamps: a successor whose clock is 50ms behind its
// predecessor's (within the 100ms HandoffSkew) starts its timestamps after
// the last one the predecessor emitted, as for a dynamic strategy's
// hand-off. On SQL, whose release frees the ID at once, it fails while
// the manager skips its hand-off guard for deterministic strategies.
func HandoffTimestamps(t *testing.T, coordinators []Coordinator) {
	testonly.Need(t)
	for _, c := range coordinators {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			newCoord, where := c.Setup(t)
			env := Ordinal(t)
			first := start(t, env, newCoord(), where, 10*time.Second)
			if first.err != nil {
				t.Fatal(first.err)
			}
			v1, err := first.f.Sortable64()
			if err != nil {
				t.Fatal(err)
			}
			first.m.Close(context.Background())

			s, err := guardlease.New(envlease.New(env, 0), newCoord(), where)
			if err != nil {
				t.Fatal(err)
			}
			f, err := nonce.New(nonce.Config{Now: func() time.Time { return time.Now().Add(-50 * time.Millisecond) }})
			if err != nil {
				t.Fatal(err)
			}
			o := lease.Options{Factories: []*nonce.Factory{f}, LeaseDuration: LeaseDuration, RenewInterval: RenewInterval,
				AcquireTimeout: 10 * time.Second, HandoffSkew: 100 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
			testonly.ShortLeases(&o)
			m, err := lease.Start(context.Background(), s, o)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(context.Background())
			v2, err := f.Sortable64()
			if err != nil {
				t.Fatal(err)
			}
			last, next := nonce.Split64(v1, first.f.Epoch()).Time, nonce.Split64(v2, f.Epoch()).Time
			if !next.After(last) {
				t.Errorf("successor's first timestamp %v is not after its predecessor's last %v", next.Format(time.StampMilli), last.Format(time.StampMilli))
			}
		})
	}
}
