package main

import (
	"bytes"
	"context"
	"log"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/nonce"
)

// TestLeaseEvents runs the event hooks of docs/leases.md on a manager that
// starts, is declared lost, takes a new lease and closes: logLease logs
// the new leases, the loss and the releases, and feedLease hands every
// event over, dropping what does not fit.
func TestLeaseEvents(t *testing.T) {
	var buf bytes.Buffer
	prev, flags := log.Writer(), log.Flags()
	log.SetOutput(&buf)
	log.SetFlags(0)
	t.Cleanup(func() { log.SetOutput(prev); log.SetFlags(flags) })

	ch := make(chan lease.Event, 5)
	var dropped atomic.Int64
	feed := feedLease(ch, &dropped)
	f, err := nonce.New(nonce.Config{})
	require.NoError(t, err)
	m, err := lease.Start(t.Context(), leasetest.NewMemory(512), lease.Options{
		Factories: []*nonce.Factory{f},
		Logger:    slog.New(slog.DiscardHandler),
		Events:    func(e lease.Event) { logLease(e); feed(e) },
	})
	require.NoError(t, err)
	m.LeaseLost("test")
	deadline := time.Now().Add(10 * time.Second)
	for m.MachineID() < 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the new lease waits out a short backoff
	}
	require.NoError(t, m.Close(context.Background()))

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"once: machine ID 0, lease of 8h0m0s",
		"once: machine ID 0 lost, no new IDs until the next lease: lease: declared lost by the application: test",
		"once: machine ID 0 released (error: <nil>)",
		"once: machine ID 0, lease of 8h0m0s",
		"once: machine ID 0 released (error: <nil>)",
	}
	assert.Equal(t, want, lines)
	// start, end of the acquire, then start, end, lost, start, end, ...:
	// five fit, the rest are dropped without holding up the manager.
	assert.Len(t, ch, 5)
	assert.Positive(t, dropped.Load())
	e := <-ch
	assert.Equal(t, lease.EventStart, e.Kind)
	assert.Equal(t, lease.OpAcquire, e.Op)
}
