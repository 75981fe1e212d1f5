package k8slease

import "sync"

// grants remember, per machine ID, the token of the lease this strategy
// last granted (Acquire, Claim, Reclaim; a claim whose outcome is unknown
// too). Only the holder itself may lower the hand-off evidence when it
// releases: its factories stopped before the release, so its timestamps
// are below its own clock then. A release of any other token (an operator
// freeing the ID of a holder that is gone, from a List) says nothing about
// that holder's clock, so it keeps the evidence the holder wrote.
type grants struct {
	mu sync.Mutex
	m  map[int]string // by machine ID
}

// add records that this strategy granted token for machine ID id.
func (g *grants) add(id int, token string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = make(map[int]string)
	}
	g.m[id] = token
}

// own reports whether token is the last one this strategy granted for id.
func (g *grants) own(id int, token string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	t, ok := g.m[id]
	return ok && t == token
}

// forget drops id's grant if it is token.
func (g *grants) forget(id int, token string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m[id] == token {
		delete(g.m, id)
	}
}
