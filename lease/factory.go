package lease

import (
	"context"
	"fmt"
	"time"

	"github.com/once-go/once/internal/leasehook"
)

// factory is the lifecycle the manager drives: a *nonce.Factory from
// Options.Factories, or one handed to Start through internal/leasehook.
type factory = leasehook.Factory

// factories applies each lifecycle step to every protected factory.
type factories []factory

// protected lists what a manager started with ctx and o protects:
// o.Factories, then the factories ctx carries (leasehook.With).
func protected(ctx context.Context, o Options) factories {
	hooked := leasehook.From(ctx)
	fs := make(factories, 0, len(o.Factories)+len(hooked))
	for _, f := range o.Factories {
		fs = append(fs, f) // a nil one is refused by check
	}
	return append(fs, hooked...)
}

// check refuses an empty list, a nil factory and one that is already
// generating.
func (fs factories) check() error {
	if len(fs) == 0 {
		return configError("Factories is empty; the lease must protect at least one factory")
	}
	for i, f := range fs {
		if isNil(f) {
			return configError("Factories[%d] is nil (check the error of nonce.New)", i)
		}
		if e, ok := f.(interface{ Enabled() bool }); ok && e.Enabled() {
			return configError("Factories[%d] is already generating: make it without nonce.Config.Fixed so that it waits for the lease", i)
		}
	}
	return nil
}

// activate activates every factory; if one fails, all are disabled.
func (fs factories) activate(machineID int, notBefore, validUntil time.Time) error {
	for i, f := range fs {
		if err := f.Activate(machineID, notBefore, validUntil); err != nil {
			fs.disable()
			return fmt.Errorf("activating factory %d: %w", i, err)
		}
	}
	return nil
}

// enable re-enables every factory; if one fails, all are disabled.
func (fs factories) enable(validUntil time.Time) error {
	for i, f := range fs {
		if err := f.Enable(validUntil); err != nil {
			fs.disable()
			return fmt.Errorf("enabling factory %d: %w", i, err)
		}
	}
	return nil
}

func (fs factories) extend(validUntil time.Time) {
	for _, f := range fs {
		f.Extend(validUntil)
	}
}

func (fs factories) disable() {
	for _, f := range fs {
		f.Disable()
	}
}
