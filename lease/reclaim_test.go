package lease_test

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
)

// reportingReclaim makes r's strategy reclaim as sqllease does: the
// returned lease reports the expiry before the reclaim (PrevExpiry) and
// the coordinator's clock, offset by coordAhead from ours.
func reportingReclaim(r *rig, coordAhead time.Duration) {
	r.s.set(func(f *fake) {
		f.reclaim = func(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
			_, prev, _ := f.mem.Holder(l.MachineID)
			nl, err := f.mem.Reclaim(ctx, l, d)
			if err != nil {
				return nl, err
			}
			nl.PrevExpiry = prev.Add(coordAhead).UTC().Round(0)
			nl.CoordinatorNow = time.Now().Add(coordAhead).UTC().Round(0)
			return nl, nil
		}
	})
}

// TestReclaimNeverRepeatsPreviousIncarnation: a process crashes right
// after generating, with its clock 800ms ahead of the coordinator's (within
// the 1s HandoffSkew), and restarts at once with a fresh factory (nothing
// remembered in memory), reclaiming its lease from the state file: every
// timestamp of the new incarnation is above every timestamp the old one
// emitted, and the first one waits about the skew allowance, not the hours
// the old lease still had to run.
func TestReclaimNeverRepeatsPreviousIncarnation(t *testing.T) {
	for _, ahead := range []time.Duration{0, 800 * time.Millisecond} {
		t.Run("old clock ahead "+ahead.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, 512)
				r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
				reportingReclaim(r, 0)
				old, err := nonce.New(nonce.Config{AwaitLease: true, Epoch: bubbleEpoch, Now: func() time.Time { return time.Now().Add(ahead) }})
				if err != nil {
					t.Fatal(err)
				}
				r.opts.Factories = []lease.Factory{old}
				m := r.start()
				var last time.Time
				for range 20000 { // more than one millisecond's worth of counter values
					v, err := old.Counter64()
					if err != nil {
						t.Fatal(err)
					}
					last = nonce.Split64(v, bubbleEpoch).Time
				}
				if v, err := old.Sortable64(); err == nil {
					if ts := nonce.Split64(v, bubbleEpoch).Time; ts.After(last) {
						last = ts
					}
				}
				crash(t, r, m)

				fresh, err := nonce.New(nonce.Config{AwaitLease: true, Epoch: bubbleEpoch})
				if err != nil {
					t.Fatal(err)
				}
				r.opts.Factories = []lease.Factory{fresh}
				restart := time.Now()
				m = r.start()
				if n := r.j.count("strategy reclaim"); n != 1 || m.MachineID() != 0 {
					t.Fatalf("machine ID %d after %d reclaims, want the old lease reclaimed", m.MachineID(), n)
				}
				for _, gen := range []func() (uint64, error){fresh.Counter64, fresh.Sortable64} {
					v, err := gen()
					if err != nil {
						t.Fatal(err)
					}
					if ts := nonce.Split64(v, bubbleEpoch).Time; !ts.After(last) {
						t.Errorf("new incarnation's timestamp %v, old one emitted up to %v", ts, last)
					}
				}
				if waited := time.Since(restart); waited > lease.DefaultHandoffSkew+time.Millisecond {
					t.Errorf("first value after a reclaim waited %v, want at most the %v skew allowance", waited, lease.DefaultHandoffSkew)
				}
				m.Close(context.Background())
			})
		})
	}
}

// TestReclaimExpiredLeaseStartsAtOnce: a lease reclaimed long after it
// expired (nobody took it over) constrains nothing: the factories start
// at once.
func TestReclaimExpiredLeaseStartsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		reportingReclaim(r, 0)
		m := r.start()
		crash(t, r, m)
		time.Sleep(lease.DefaultLeaseDuration + time.Hour)
		m = r.start()
		_, notBefore, _ := r.f.state()
		if r.j.count("strategy reclaim") != 1 || m.MachineID() != 0 || !notBefore.Before(time.Now().Add(-50*time.Minute)) {
			t.Errorf("machine ID %d, notBefore now %+v; want the expired lease reclaimed without a wait", m.MachineID(), time.Until(notBefore))
		}
		m.Close(context.Background())
	})
}

// TestReclaimCoordinatorClockAhead: the notBefore of a reclaim follows the
// coordinator's clock plus the skew allowance.
func TestReclaimCoordinatorClockAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		r.opts.HandoffSkew = 2 * time.Second
		reportingReclaim(r, 3*time.Second)
		m := r.start()
		crash(t, r, m)
		m = r.start()
		if _, notBefore, _ := r.f.state(); !notBefore.Equal(time.Now().Add(5 * time.Second)) {
			t.Errorf("notBefore now %+v, want coordinator's now (+3s) + 2s skew", time.Until(notBefore))
		}
		m.Close(context.Background())
	})
}
