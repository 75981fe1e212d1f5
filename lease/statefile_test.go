package lease_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// crash stops m the way kill -9 would, as far as the coordinator can tell:
// the release fails, so the lease stays held and the state file keeps it.
func crash(t *testing.T, r *rig, m *lease.Manager) {
	t.Helper()
	r.s.set(func(f *fake) {
		f.release = func(context.Context, driver.Lease) error { return errRetry }
	})
	if err := m.Close(context.Background()); !errors.Is(err, driver.ErrRetry) {
		t.Fatalf("Close with a failing release: %v", err)
	}
	r.s.set(func(f *fake) { f.release = nil })
}

func TestStateFileReclaimsOwnLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.s.mem.Steal(0, time.Hour) // someone else holds 0
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		m := r.start()
		id := m.MachineID()
		token, _, _ := r.s.mem.Holder(id)
		// A crash loop: each restart takes back its own lease, under a new
		// token each time.
		for i := range 50 {
			crash(t, r, m)
			time.Sleep(time.Minute)
			m = r.start()
			got, _, _ := r.s.mem.Holder(id)
			if m.MachineID() != id || got == token {
				t.Fatalf("restart %d: machine ID %d (token %.8s), want %d under a new token (old %.8s)", i, m.MachineID(), got, id, token)
			}
			token = got
		}
		if held := r.s.mem.Held(); held != 2 {
			t.Errorf("%d IDs held after a crash loop, want 2 (ours and the other holder's)", held)
		}
		if n := r.j.count("strategy reclaim"); n != 50 {
			t.Errorf("%d reclaims, want 50", n)
		}
		if n := len(r.rec.of(lease.EventEnd, lease.OpReclaim)); n != 50 {
			t.Errorf("%d reclaim events, want 50", n)
		}
		// A clean shutdown releases and forgets the lease.
		if err := m.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(r.opts.StateFile); len(bytes.TrimSpace(b)) != 0 {
			t.Errorf("state file after a clean Close: %q", b)
		}
	})
}

func TestStateFileStaleTokenAcquiresAnew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		m := r.start()
		crash(t, r, m)
		r.s.mem.Steal(0, time.Hour) // taken over while we were down
		m = r.start()
		if m.MachineID() != 1 {
			t.Errorf("machine ID %d after the old lease was taken over, want 1", m.MachineID())
		}
		if n := r.j.count("strategy reclaim"); n != 1 {
			t.Errorf("%d reclaim attempts", n)
		}
		m.Close(context.Background())
	})
}

func TestStateFileRejectsSecondManagerAndGarbage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		m := r.start()
		_, err := lease.Start(leasehook.With(t.Context(), &fakeFactory{j: r.j}), r.s, r.opts)
		if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "in use by another live manager") {
			t.Errorf("second manager on one state file: %v", err)
		}
		m.Close(context.Background())

		if err := os.WriteFile(r.opts.StateFile, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
		m = r.start()
		if m.MachineID() != 0 || r.j.count("strategy reclaim") != 0 {
			t.Errorf("garbage state file: machine ID %d, %d reclaims", m.MachineID(), r.j.count("strategy reclaim"))
		}
		m.Close(context.Background())
		if fi, err := os.Stat(r.opts.StateFile); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("state file mode %v, %v", fi.Mode(), err)
		}
	})
	_, err := lease.Start(leasehook.With(t.Context(), &fakeFactory{j: &journal{}}), newFake(&journal{}, 1), lease.Options{
		StateFile: filepath.Join(t.TempDir(), "missing-dir", "lease.json"),
	})
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "StateFile") {
		t.Errorf("unwritable state file: %v", err)
	}
}

// rangedFake is the rig's strategy restricted to the machine IDs r
// ([driver.Ranged]): its Acquire takes the fake's first free ID in r.
type rangedFake struct {
	*fake
	r driver.IDRange
}

func (s rangedFake) MachineIDs() driver.IDRange { return s.r }

func (s rangedFake) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	var outside []driver.Lease // held while looking further, then given back
	defer func() {
		for _, l := range outside {
			_ = s.mem.Release(ctx, l)
		}
	}()
	for {
		l, err := s.fake.Acquire(ctx, d)
		if err != nil || s.r.Contains(l.MachineID) {
			return l, err
		}
		outside = append(outside, l)
	}
}

// TestStateFileOutsideRangeReleased: a process restarts with its strategy
// restricted to machine IDs that exclude the one in its state file (the
// operator moved it to another range): the manager releases that lease
// and acquires one in the range, instead of reclaiming it.
func TestStateFileOutsideRangeReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		r.opts.StateFile = filepath.Join(t.TempDir(), "lease.json")
		m := r.start()
		if m.MachineID() != 0 {
			t.Fatalf("machine ID %d, want 0", m.MachineID())
		}
		crash(t, r, m)
		m, err := lease.Start(r.with(t.Context()), rangedFake{r.s, driver.IDRange{Min: 5, Max: 6}}, r.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		if _, _, live := r.s.mem.Holder(0); live || m.MachineID() != 5 || r.j.count("strategy reclaim") != 0 {
			t.Errorf("machine ID %d, ID 0 still held %v, %d reclaims; want the state file's ID 0 released and ID 5 acquired without a reclaim\n%v",
				m.MachineID(), live, r.j.count("strategy reclaim"), r.j)
		}
	})
}
