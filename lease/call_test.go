package lease

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/lease/driver"
)

// countingCtx is a parent context that counts the children registered on
// it: package context registers a child of a context with an AfterFunc
// method through that method, and calls the returned stop function when
// the child is canceled.
type countingCtx struct {
	done chan struct{}

	mu         sync.Mutex
	registered int // AfterFunc calls
	stopped    int // stop calls that unregistered a child
}

func newCountingCtx() *countingCtx { return &countingCtx{done: make(chan struct{})} }

func (c *countingCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *countingCtx) Done() <-chan struct{}       { return c.done }
func (c *countingCtx) Err() error                  { return nil }
func (c *countingCtx) Value(any) any               { return nil }

func (c *countingCtx) AfterFunc(func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.registered++
	var once sync.Once
	return func() bool {
		stopped := false
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.stopped++
			stopped = true
		})
		return stopped
	}
}

// live is the number of children still registered.
func (c *countingCtx) live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.registered - c.stopped
}

// TestCallLeavesNoChildContext: every call derives the strategy's context
// from the lease context and cancels it when it returns, with or without a
// deadline, so that a long-lived lease context does not collect one child
// per renewal or retry.
func TestCallLeavesNoChildContext(t *testing.T) {
	const calls = 100
	m := &Manager{name: "counting", o: Options{Logger: slog.New(slog.DiscardHandler), ReleaseTimeout: time.Second}}
	for _, c := range []struct {
		name     string
		deadline func() time.Time
		err      error
	}{
		{"deadline", func() time.Time { return time.Now().Add(time.Hour) }, nil},
		{"deadline, failed", func() time.Time { return time.Now().Add(time.Hour) }, errors.New("refused")},
		{"no deadline", func() time.Time { return time.Time{} }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := newCountingCtx()
			for range calls {
				o := m.call(parent, OpRenew, sourceScheduled, 1, c.deadline(), nil, func(ctx context.Context) (driver.Lease, error) {
					return driver.Lease{MachineID: 1}, c.err
				})
				require.ErrorIs(t, o.err, c.err)
			}
			require.Positive(t, parent.registered, "the calls' contexts were not derived from the parent")
			assert.Zero(t, parent.live(), "children left registered on the parent after %d calls (%d registered)", calls, parent.registered)
		})
	}
}
