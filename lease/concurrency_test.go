package lease_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
)

// TestManyManagers: 600 managers race for 512 IDs on one in-memory
// coordinator: exactly 512 start, the rest time out on exhaustion, and no
// machine ID is held twice.
func TestManyManagers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 600 managers contending for 512 IDs take long")
	}
	synctest.Test(t, func(t *testing.T) {
		mem := leasetest.NewMemory(512)
		var (
			mu       sync.Mutex
			managers []*lease.Manager
			ids      = map[int]int{}
			timeouts int
			wg       sync.WaitGroup
		)
		for i := range 600 {
			wg.Go(func() {
				m, err := lease.Start(leasehook.With(t.Context(), &fakeFactory{j: &journal{}}), mem, lease.Options{Logger: quiet})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ids[m.MachineID()]++
					managers = append(managers, m)
				case errors.Is(err, lease.ErrTimeout) && errors.Is(err, driver.ErrExhausted):
					timeouts++
				default:
					t.Errorf("manager %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		if len(managers) != 512 || len(ids) != 512 || timeouts != 88 {
			t.Errorf("%d managers started on %d distinct IDs, %d timed out; want 512, 512, 88", len(managers), len(ids), timeouts)
		}
		// An hour of renewals later, every manager still holds its own ID.
		time.Sleep(time.Hour)
		seen := map[int]bool{}
		for _, m := range managers {
			if m.Err() != nil || seen[m.MachineID()] {
				t.Fatalf("machine ID %d: Err %v, seen twice %v", m.MachineID(), m.Err(), seen[m.MachineID()])
			}
			seen[m.MachineID()] = true
		}
		for _, m := range managers {
			wg.Go(func() { _ = m.Close(context.Background()) })
		}
		wg.Wait()
		if mem.Held() != 0 {
			t.Errorf("%d IDs held after every manager closed", mem.Held())
		}
	})
}
