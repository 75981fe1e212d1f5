package sqllease_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
)

// holding is a lease manager started for a test and the nonce factory it
// drives.
type holding struct {
	m *lease.Manager
	f *nonce.Factory
}

// startHolder starts a lease manager on s with a nonce factory. It
// returns the error of lease.Start; a started manager is closed when t
// ends.
func startHolder(t *testing.T, s lease.Strategy, timeout time.Duration) (holding, error) {
	t.Helper()
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lease.Start(ctxT(t), s, lease.Options{
		Factories:      []lease.Factory{f},
		AcquireTimeout: timeout,
		Logger:         slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return holding{}, err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		m.Close(ctx)
	})
	return holding{m, f}, nil
}

// emitted returns the machine ID carried by a value h's factory emits now.
func (h holding) emitted(t *testing.T) int {
	t.Helper()
	v, err := h.f.Counter64()
	if err != nil {
		t.Fatalf("machine ID %d: Counter64: %v", h.m.MachineID(), err)
	}
	return nonce.Split64(v, h.f.Epoch()).MachineID
}

// doubleHold fails t when a and b both hold one machine ID and both
// factories emit values carrying it.
func doubleHold(t *testing.T, what string, a, b holding) {
	t.Helper()
	ida, idb := a.emitted(t), b.emitted(t)
	if a.m.MachineID() == b.m.MachineID() || ida == idb {
		t.Fatalf("%s: two managers both hold machine ID %d (Err %v, %v) and both emit values carrying machine ID %d, %d",
			what, a.m.MachineID(), a.m.Err(), b.m.Err(), ida, idb)
	}
}
