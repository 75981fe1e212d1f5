package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/nonce"
)

// TestFactoryOfLiveManagerRefused: a factory protected by a manager that is
// not closed is refused by a second Start, also while the first manager
// has it disabled (after a loss, re-acquiring): two managers would
// otherwise activate, extend and disable each other's lease state. Once
// the first manager is closed, the factory may be protected again.
func TestFactoryOfLiveManagerRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ids, err := nonce.New(nonce.Config{Epoch: bubbleEpoch})
		if err != nil {
			t.Fatal(err)
		}
		a := newRig(t, 512)
		a.opts.Factories = []lease.Factory{ids}
		blocked := make(chan struct{})
		ma := a.start()
		a.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (lease.Lease, error) {
				select {
				case <-blocked:
					return f.mem.Acquire(ctx, d)
				case <-ctx.Done():
					return lease.Lease{}, errRetry
				}
			}
		})
		ma.LeaseLost("test: coordinator alarm") // a re-acquires; ids is disabled meanwhile
		synctest.Wait()
		if ids.Enabled() {
			t.Fatal("factory enabled after LeaseLost")
		}

		b := newRig(t, 512)
		b.s.mem.Steal(0, time.Hour) // b's coordinator grants machine ID 1
		b.opts.Factories = []lease.Factory{&fakeFactory{j: b.j}, ids}
		mb, err := lease.Start(t.Context(), b.s, b.opts)
		if err == nil {
			before := ids.MachineID()
			close(blocked) // a installs its new lease on the factory b runs
			time.Sleep(time.Minute)
			synctest.Wait()
			idA, idB, idF := ma.MachineID(), mb.MachineID(), ids.MachineID()
			mb.Close(context.Background())
			t.Fatalf("second Start accepted the factory of a live manager: the factory ran on b's %d, then a installed its lease: a holds %d, b holds %d, the factory runs on %d",
				before, idA, idB, idF)
		}
		if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "Factories[1]") || !strings.Contains(err.Error(), "Close") {
			t.Errorf("second Start: %v; want ErrConfig naming Factories[1] and the fix", err)
		}
		if b.s.mem.Held() != 1 {
			t.Errorf("the refused Start holds %d IDs", b.s.mem.Held()-1)
		}

		close(blocked)
		time.Sleep(time.Minute) // a's next attempt, after its backoff
		synctest.Wait()
		if ma.MachineID() != 0 || !ids.Enabled() {
			t.Fatalf("a after re-acquiring: machine ID %d, enabled %v", ma.MachineID(), ids.Enabled())
		}
		if err := ma.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		mb, err = lease.Start(t.Context(), b.s, b.opts)
		if err != nil {
			t.Fatalf("Start after the first manager closed: %v", err)
		}
		if mb.MachineID() != 1 || ids.MachineID() != 1 {
			t.Errorf("b holds %d, factory on %d; want 1", mb.MachineID(), ids.MachineID())
		}
		mb.Close(context.Background())
	})
}

// TestFactoryFreedByFinalLoss: a deterministic strategy's final loss ends
// its manager, which lets go of the factory.
func TestFactoryFreedByFinalLoss(t *testing.T) {
	t.Setenv("TEST_POD_NAME", "web-7")
	ids, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opts := lease.Options{Factories: []lease.Factory{ids}, Logger: quiet}
	m, err := lease.Start(t.Context(), envlease.New("TEST_POD_NAME", 0), opts)
	if err != nil {
		t.Fatal(err)
	}
	m.LeaseLost("test: pod fenced")
	<-m.Done()
	m2, err := lease.Start(t.Context(), envlease.New("TEST_POD_NAME", 0), opts)
	if err != nil {
		t.Fatalf("Start after a final loss: %v", err)
	}
	m2.Close(context.Background())
}

// TestFactoryListedTwiceRefused: one factory twice in Factories is a
// configuration error naming both places.
func TestFactoryListedTwiceRefused(t *testing.T) {
	f := &fakeFactory{j: &journal{}}
	_, err := lease.Start(t.Context(), newFake(&journal{}, 4), lease.Options{
		Factories: []lease.Factory{f, &fakeFactory{j: &journal{}}, f}, Logger: quiet,
	})
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "Factories[2] is Factories[0]") {
		t.Errorf("Start = %v; want ErrConfig: Factories[2] is Factories[0]", err)
	}
}
