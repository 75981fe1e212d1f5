package faultsuite

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/nonce"
)

// failures is a testing.TB that keeps what checkDraws reports.
type failures struct {
	testing.TB
	msgs []string
}

func (f *failures) Helper() {}
func (f *failures) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

// leaseValue draws one value under machine ID id from a real factory.
func leaseValue(t *testing.T, id int) uint64 {
	t.Helper()
	f, err := nonce.New(nonce.Config{})
	require.NoError(t, err)
	require.NoError(t, f.Activate(id, time.Time{}, time.Now().Add(time.Minute)))
	v, err := f.Sortable64()
	require.NoError(t, err)
	return v
}

// A draw in flight when an activate began may carry the new lease: the
// factory takes its state after the generator read the clock.
func TestCheckDrawsAcceptsDrawSpanningActivate(t *testing.T) {
	v := leaseValue(t, 232)
	act := time.Now()
	life := []lifeEvent{{kind: lifeActivate, at: act, id: 232, validUntil: act.Add(time.Minute)}}
	draws := []draw{{start: act.Add(-50 * time.Microsecond), end: act.Add(50 * time.Microsecond), v: v}}
	f := &failures{TB: t}
	assert.Equal(t, 1, checkDraws(f, "holder", draws, life, 0, map[uint64]string{}))
	assert.Empty(t, f.msgs)
	assert.Zero(t, strays(draws, act.Add(-time.Second), act))
}

// The checker still catches what it is for: a value over before the
// lease began, one after the deadline, one under another machine ID, and
// a repeat.
func TestCheckDrawsCatchesPlantedFaults(t *testing.T) {
	v := leaseValue(t, 7)
	act := time.Now()
	vu := act.Add(time.Second)
	life := []lifeEvent{
		{kind: lifeActivate, at: act, id: 7, validUntil: vu},
		{kind: lifeDisable, at: vu.Add(time.Millisecond)},
	}
	for _, tc := range []struct {
		name string
		d    draw
		want string
		id   int
	}{
		{"before the lease", draw{start: act.Add(-time.Millisecond), end: act.Add(-time.Microsecond)}, "held no lease", 7},
		{"after the deadline", draw{start: vu, end: vu.Add(time.Microsecond)}, "after the lease's deadline", 7},
		{"other machine ID", draw{start: act.Add(time.Millisecond), end: act.Add(2 * time.Millisecond)}, "carries machine ID 8", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.d.v = leaseValue(t, tc.id)
			f := &failures{TB: t}
			checkDraws(f, "holder", []draw{tc.d}, life, 0, map[uint64]string{})
			require.Len(t, f.msgs, 1)
			assert.Contains(t, f.msgs[0], tc.want)
		})
	}
	t.Run("repeat", func(t *testing.T) {
		d := draw{start: act.Add(time.Millisecond), end: act.Add(2 * time.Millisecond), v: v}
		f := &failures{TB: t}
		checkDraws(f, "holder", []draw{d, d}, life, 0, map[uint64]string{})
		require.Len(t, f.msgs, 1)
		assert.Contains(t, f.msgs[0], "already drawn")
	})
	assert.Equal(t, 1, strays([]draw{{start: vu, end: vu.Add(time.Microsecond), v: v}}, vu, vu.Add(time.Second)))
}
