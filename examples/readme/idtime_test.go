package main

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// clock is a manual clock for nonce.Config.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// ID types of the time test, bound to the test's factory.
var timeGen once.Binding

type counterSpec struct{}

func (counterSpec) Options() once.Options { return once.Options{Prefix: "cnt_", Generator: &timeGen} }

type sortableSpec struct{}

func (sortableSpec) Options() once.Options {
	return once.Options{Prefix: "srt_", Nonce: nonce.Sortable, Generator: &timeGen}
}

// TestIDTime pins what the README, docs/ids.md and docs/sql.md say an ID's
// time is. A counter ID's time is its lease's start plus the milliseconds
// its factory saved up (one per 8,192 IDs): 10 IDs made over 8 s of one
// lease all read the lease's start; a burst runs ahead of it, never past
// the clock. A sortable ID's time is the millisecond it was made.
func TestIDTime(t *testing.T) {
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{now: start}
	f, err := nonce.New(nonce.Config{Now: c.Now})
	require.NoError(t, err)
	prev := timeGen.Factory()
	timeGen.Set(f)
	t.Cleanup(func() { timeGen.Set(prev) })
	require.NoError(t, f.Activate(5, time.Time{}, time.Time{}), "the lease starts at %v", start)

	// Ten counter IDs over 8 s, and ten sortable ones beside them.
	type made struct {
		counter  once.Typed[counterSpec]
		sortable once.Typed[sortableSpec]
		at       time.Time
	}
	var ids []made
	for i := range 10 {
		at := start.Add(time.Duration(i) * 889 * time.Millisecond).Add(123 * time.Microsecond)
		c.Set(at)
		cid, err := once.NewAs[once.Typed[counterSpec]]()
		require.NoError(t, err)
		sid, err := once.NewAs[once.Typed[sortableSpec]]()
		require.NoError(t, err)
		ids = append(ids, made{cid, sid, at})
	}
	for i, m := range ids {
		ct, err := once.TimeOf(m.counter)
		require.NoError(t, err)
		assert.False(t, ct.After(m.at), "counter ID %d: time %v after its creation %v", i, ct, m.at)
		assert.False(t, ct.Before(start), "counter ID %d: time %v before the lease's start %v", i, ct, start)
		assert.Equal(t, start, ct, "counter ID %d made at %v: time, want the lease's start (nothing saved up)", i, m.at)
		st, err := once.TimeOf(m.sortable)
		require.NoError(t, err)
		assert.Equal(t, m.at.Truncate(time.Millisecond), st, "sortable ID %d: time, want its creation millisecond", i)
	}

	// A burst of 3 x 8,192 counter IDs at one instant spends saved-up
	// milliseconds: the time runs ahead of the lease's start, not past
	// the clock.
	at := start.Add(10 * time.Second)
	c.Set(at)
	var last time.Time
	for range 3 * 8192 {
		id, err := once.NewAs[once.Typed[counterSpec]]()
		require.NoError(t, err)
		ct, err := once.TimeOf(id)
		require.NoError(t, err)
		require.False(t, ct.After(at), "counter ID of the burst: time %v after its creation %v", ct, at)
		require.False(t, ct.Before(last), "counter IDs of the burst: time %v before the previous one's %v", ct, last)
		last = ct
	}
	assert.Equal(t, start.Add(3*time.Millisecond), last, "the burst's last counter ID: time, want the lease's start + 3 saved-up ms")
}
