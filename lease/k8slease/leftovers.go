package k8slease

import (
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"

	"github.com/once-go/once/lease/internal/leasekit"
)

// leftoverAge is how long the free IDs of a view stay usable by later
// Acquires.
const leftoverAge = time.Second

// leftovers are the free IDs of the strategy's last view of the pool that
// no Acquire has tried yet, for the Acquires of the next second: a process
// acquiring many IDs (a test, a tool) then lists the pool about once a
// second instead of once per ID. A claim from a stale view fails with a
// 409 like any lost race, and an Acquire that loses Options.Candidates of
// them drops the leftovers and lists afresh.
type leftovers struct {
	mu   sync.Mutex
	at   time.Time
	free []int
	recs [Capacity]*coordv1.Lease
}

// candidate is a free ID and its record (nil: no Lease).
type candidate struct {
	id  int
	rec *coordv1.Lease
}

// take hands out one leftover ID (the lowest with lowest, else one drawn
// at random) and removes it; ok is false when there is none, or the view
// is older than leftoverAge.
func (p *leftovers) take(lowest bool) (c candidate, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.at) > leftoverAge {
		p.free = nil
	}
	if len(p.free) == 0 {
		return candidate{}, false
	}
	id := leasekit.Candidates(p.free, 1, lowest)[0]
	p.free = p.free[1:]
	return candidate{id, p.recs[id]}, true
}

// store keeps v's free IDs, read at at.
func (p *leftovers) store(v *view, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at, p.free, p.recs = at, v.free, v.recs
}

// drop forgets the leftovers.
func (p *leftovers) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = nil
}
