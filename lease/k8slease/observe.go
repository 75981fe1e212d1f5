package k8slease

import (
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
)

// sightings remember, per Lease, the version of its record this strategy
// last read and when (local monotonic clock) it first read that version.
// A record is expired when its version has stayed the same for its
// recorded leaseDurationSeconds since then.
//
// Why this is safe: a holder's write was sent before the record existed,
// and this strategy read the record after that, so its first reading is
// later than the send; the holder counts its TTL from the send and stops
// its factories a margin before the TTL runs out. No clock but this
// process's own is involved (other processes' clocks, and the
// timestamps in the record, may be wrong: they are not used). A takeover
// then updates the record on the condition that its resourceVersion is
// still the one timed, so a renewal that slipped in makes it fail.
type sightings struct {
	mu sync.Mutex
	m  map[int]sighting // by machine ID
}

type sighting struct {
	version string    // resourceVersion
	first   time.Time // monotonic: when this version was first read
}

// note records that rec (machine ID id) was read at at, and returns when
// its current version was first read.
func (s *sightings) note(id int, rec *coordv1.Lease, at time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[int]sighting)
	}
	if old, ok := s.m[id]; ok && old.version == rec.ResourceVersion {
		return old.first
	}
	s.m[id] = sighting{version: rec.ResourceVersion, first: at}
	return at
}

// keep forgets every machine ID not in present (its Lease is gone).
func (s *sightings) keep(present *[Capacity]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.m {
		if !present[id] {
			delete(s.m, id)
		}
	}
}

// judgement is what a strategy makes of one record at one moment.
type judgement struct {
	free bool          // released, or expired by this strategy's observation
	left time.Duration // held: time until it expires by that observation; -1 never (no valid duration)
}

// judge decides whether rec, whose current version was first read at
// first, is free at now (monotonic).
func judge(rec *coordv1.Lease, first, now time.Time) judgement {
	if holderOf(rec) == "" {
		return judgement{free: true}
	}
	d, ok := durationOf(rec)
	if !ok {
		return judgement{left: -1}
	}
	left := first.Add(d).Sub(now)
	if left <= 0 {
		return judgement{free: true}
	}
	return judgement{left: left}
}
