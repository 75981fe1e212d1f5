package faultsuite

import (
	"sync"
	"testing"
	"time"
)

// TestRenewalRacingTheDeadline: a renewal succeeds just before the end of
// the safe window, and the old deadline passes between the manager's
// check ("is the deadline still ahead? then Extend, else Enable") and its
// Extend call reaching the factory: the factory's own timer disables it
// in between (here the manager's goroutine is held up in the Extend call,
// as a preemption at that point would hold it up). The lease is renewed
// and the manager holds it, so the factory must generate again, at the
// latest after the next renewal.
//
// Against the manager as of this test: Extend only moves the deadline and
// never re-enables, so the factory stays disabled for as long as the
// lease is held (every later renewal is another Extend), while
// MachineID() and Err() report a healthy lease: an outage without a loss.
func RenewalRacingTheDeadline(t *testing.T) {
	var c Coordinator
	for _, e := range coordinators {
		if e.Name == "sqlite" { // manager behaviour: one coordinator, always available
			c = e
		}
	}
	if c.Name == "" {
		t.Fatal("faultsuite: RenewalRacingTheDeadline runs on the sqlite coordinator, which this package's suite lacks")
	}
	sp := c.Setup(t, false)
	cl := c.open(t, sp, nil, 2)
	var (
		once     sync.Once
		raced    = make(chan time.Time, 1)
		deadline time.Time
		mu       sync.Mutex
	)
	r := startRig(t, cl.mustStrategy(t, false), rigOptions{beforeExtend: func(time.Time) {
		mu.Lock()
		armed := !deadline.IsZero()
		dl := deadline
		mu.Unlock()
		if !armed {
			return
		}
		once.Do(func() {
			// Hold the Extend until the current deadline has passed and
			// the factory's own timer has disabled it.
			time.Sleep(time.Until(dl) + 30*time.Millisecond)
			raced <- time.Now()
		})
	}})
	r.gen.waitValues(t, time.Now(), 20, 3*time.Second)
	g, _ := r.rf.last(lifeActivate, lifeEnable, lifeExtend)
	mu.Lock()
	deadline = g.validUntil
	mu.Unlock()
	var at time.Time
	select {
	case at = <-raced:
	case <-time.After(5 * time.Second):
		t.Fatal("no renewal reached the factory")
	}
	// Two more renewal periods: the next renewal (or this one) must have
	// re-enabled the factory.
	time.Sleep(2*renewAfter + 100*time.Millisecond)
	draws := r.gen.snapshot()
	after := summarise(draws, at.Add(2*renewAfter), time.Now())
	if r.m.MachineID() < 0 || r.m.Err() != nil {
		t.Fatalf("manager lost the lease: %v", r.m.Err())
	}
	if after.values == 0 {
		t.Errorf("factory still refuses %v after a renewal raced its deadline (%d refused draws, first: %v), while the manager holds machine ID %d with Err() = %v",
			time.Since(at).Round(time.Millisecond), after.refused, after.first.err, r.m.MachineID(), r.m.Err())
	}
	checkDraws(t, "holder", r.gen.halt(), r.rf.events(), 0, map[uint64]string{})
}
