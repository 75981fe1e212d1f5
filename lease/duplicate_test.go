package lease_test

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// holders counts, per machine ID, the managers whose factories generate
// with it now.
func holders(ms []*lease.Manager, fs []*fakeFactory) map[int]int {
	n := map[int]int{}
	for i, m := range ms {
		if id := m.MachineID(); id >= 0 && fs[i].generating() {
			n[id]++
		}
	}
	return n
}

// startAnother starts one more manager on r's strategy with its own
// factory and the given state file ("" for none).
func startAnother(t *testing.T, r *rig, stateFile string) (*lease.Manager, *fakeFactory) {
	t.Helper()
	f := &fakeFactory{j: r.j}
	o := r.opts
	o.StateFile = stateFile
	m, err := lease.Start(leasehook.With(t.Context(), f), r.s, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m, f
}

// TestOrphanedReclaimCannotFreeLaterHolder: Start fails while its reclaim
// of the state file's lease is still running (the strategy ignores its
// context); a second Start with the same state file reclaims the lease;
// then the first reclaim returns. Whatever the manager does after that
// call must not free the second manager's lease: a third manager must get
// another machine ID.
func TestOrphanedReclaimCannotFreeLaterHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		crash(t, r, r.start())

		var hang sync.WaitGroup
		hang.Add(1)
		r.s.set(func(f *fake) {
			f.reclaim = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				hang.Wait() // ignores ctx
				return f.mem.Reclaim(context.Background(), l, d)
			}
		})
		if _, err := lease.Start(r.with(t.Context()), r.s, r.opts); !errors.Is(err, lease.ErrTimeout) {
			t.Fatalf("Start with a hanging reclaim: %v, want ErrTimeout", err)
		}
		r.s.set(func(f *fake) { f.reclaim = nil })

		m2, f2 := startAnother(t, r, r.opts.StateFile)

		hang.Done() // the first reclaim returns now
		synctest.Wait()

		m3, f3 := startAnother(t, r, "")
		if n := holders([]*lease.Manager{m2, m3}, []*fakeFactory{f2, f3}); n[m2.MachineID()] > 1 {
			t.Fatalf("managers 2 and 3 both generate with machine ID %d:\n%s", m2.MachineID(), r.j)
		}
	})
}

// TestCloseWithOrphanedRenewalCannotFreeLaterHolder: Close gives up on a
// renewal still in flight after ReleaseTimeout; a new manager with the
// same state file reclaims the lease; then the renewal returns. The first
// manager's clean-up must not free the new manager's lease.
func TestCloseWithOrphanedRenewalCannotFreeLaterHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		m1 := r.start()
		var hang sync.WaitGroup
		hang.Add(1)
		entered := make(chan struct{})
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				close(entered)
				hang.Wait()
				return f.mem.Renew(context.Background(), l, d)
			}
			// The release at Close fails, so the state file keeps the lease.
			f.release = func(context.Context, driver.Lease) error { return errRetry }
		})
		<-entered
		_ = m1.Close(context.Background())
		r.s.set(func(f *fake) { f.renew, f.release = nil, nil })

		m2, f2 := startAnother(t, r, r.opts.StateFile)

		hang.Done()
		synctest.Wait()

		m3, f3 := startAnother(t, r, "")
		if n := holders([]*lease.Manager{m2, m3}, []*fakeFactory{f2, f3}); n[m2.MachineID()] > 1 {
			t.Fatalf("managers 2 and 3 both generate with machine ID %d:\n%s", m2.MachineID(), r.j)
		}
	})
}

// TestStateFileFromAnotherHostNotReclaimed: a state file written by
// another host incarnation (a copied image, a restored volume) is not
// reclaimed: the manager acquires a fresh lease and leaves the recorded
// one alone, since its writer may still be alive.
func TestStateFileFromAnotherHostNotReclaimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		crash(t, r, r.start())
		token, _, _ := r.s.mem.Holder(0)
		// Rewrite the record as another host's: same lease, other host.
		foreign := []byte(`{"strategy":"fake","machine_id":0,"token":"` + b64(token) + `","host":"other-host","boot_id":"00000000-0000-0000-0000-000000000000"}`)
		if err := os.WriteFile(r.opts.StateFile, foreign, 0o600); err != nil {
			t.Fatal(err)
		}
		m := r.start()
		if n := r.j.count("strategy reclaim"); n != 0 {
			t.Errorf("reclaimed another host's lease (%d reclaim calls)", n)
		}
		if m.MachineID() == 0 {
			t.Errorf("took machine ID 0, which another host's record holds")
		}
		if got, _, live := r.s.mem.Holder(0); got != token || !live {
			t.Errorf("the other host's lease on machine ID 0 was changed or freed")
		}
	})
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
