package leasetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// Concurrency of checkConcurrentExhaustion: separate strategies (as
// separate processes would hold) and goroutines racing on them.
const (
	raceContenders = 16
	raceWorkers    = 64
)

// checkConcurrentExhaustion races more acquisitions than there are IDs:
// exactly Capacity succeed, every other one ends in ErrExhausted, and no
// machine ID is held twice.
func (s *suite) checkConcurrentExhaustion(t *testing.T) {
	contender := s.h.New(t)
	strategies := make([]driver.Strategy, raceContenders)
	for i := range strategies {
		strategies[i] = contender()
	}
	tasks := s.h.Capacity + s.h.Capacity/8 + raceContenders
	next := make(chan int, tasks)
	for i := range tasks {
		next <- i
	}
	close(next)

	var (
		mu        sync.Mutex
		holders   = make(map[int]int, s.h.Capacity) // machine ID -> task
		exhausted int
		failures  []error
	)
	var wg sync.WaitGroup
	for w := range raceWorkers {
		st := strategies[w%raceContenders]
		wg.Go(func() {
			for task := range next {
				l, err := raceAcquire(t.Context(), st)
				mu.Lock()
				switch {
				case err == nil:
					if prev, dup := holders[l.MachineID]; dup {
						failures = append(failures, fmt.Errorf("machine ID %d held by tasks %d and %d", l.MachineID, prev, task))
					}
					holders[l.MachineID] = task
				case errors.Is(err, driver.ErrExhausted):
					exhausted++
				default:
					failures = append(failures, fmt.Errorf("task %d: %w", task, err))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range failures[:min(len(failures), 10)] {
		t.Error(err)
	}
	if len(holders) != s.h.Capacity || exhausted != tasks-s.h.Capacity {
		t.Errorf("%d acquisitions raced for %d IDs: %d distinct IDs won, %d exhausted; want %d and %d",
			tasks, s.h.Capacity, len(holders), exhausted, s.h.Capacity, tasks-s.h.Capacity)
	}
	for id := range holders {
		s.checkID(t, "Acquire", id)
	}
}

// raceAcquire is acquire for worker goroutines: no test calls, a bounded
// context per call.
func raceAcquire(ctx context.Context, st driver.Strategy) (driver.Lease, error) {
	var err error
	for range 200 {
		var l driver.Lease
		cctx, cancel := context.WithTimeout(ctx, callBound)
		l, err = st.Acquire(cctx, longTTL)
		cancel()
		if err == nil || !transient(err) {
			return l, err
		}
		time.Sleep(time.Millisecond + rand.N(9*time.Millisecond))
	}
	return driver.Lease{}, fmt.Errorf("still failing after 200 attempts: %w", err)
}
