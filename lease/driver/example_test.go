package driver_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// fixedSeven is the smallest strategy: a deterministic one that always
// holds machine ID 7, as lease/envlease does from an environment variable.
// It has no coordinator: Renew always succeeds and Release does nothing.
type fixedSeven struct{}

func (fixedSeven) Name() string        { return "fixed-seven" }
func (fixedSeven) Deterministic() bool { return true }

func (fixedSeven) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	if err := ctx.Err(); err != nil {
		return driver.Lease{}, fmt.Errorf("%w: %w", driver.ErrRetry, err)
	}
	return driver.Lease{MachineID: 7, Token: "seven", TTL: d}, nil
}

func (s fixedSeven) Renew(ctx context.Context, _ driver.Lease, d time.Duration) (driver.Lease, error) {
	return s.Acquire(ctx, d)
}

func (fixedSeven) Release(context.Context, driver.Lease) error { return nil }

// A strategy implements driver.Strategy; an application hands it to
// lease.Start.
func Example() {
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		panic(err)
	}
	var s driver.Strategy = fixedSeven{}
	m, err := lease.Start(context.Background(), s, lease.Options{
		Factories: []*nonce.Factory{f},
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer m.Close(context.Background())
	v, _ := f.Counter64()
	fmt.Println(m.MachineID(), nonce.Split64(v, f.Epoch()).MachineID)
	// Output: 7 7
}
