package lease

import (
	"fmt"
	"time"
)

// Factory is what a lease protects: a nonce factory that generates only
// while its process holds the machine ID. *nonce.Factory satisfies it.
//
// Disable must take effect at once for every goroutine; a factory must also
// disable itself when validUntil passes, from its own timer or check, so
// that generation stops on time even if the manager is blocked.
type Factory interface {
	// Activate starts a new lease: sets the machine ID, re-initialises the
	// counters so that no timestamp is at or below notBefore or anything
	// emitted before, sets the deadline and enables generation.
	Activate(machineID int, notBefore, validUntil time.Time) error
	// Enable resumes the same lease after a Disable, keeping the counters.
	Enable(validUntil time.Time) error
	// Extend moves the deadline of the current lease without enabling.
	Extend(validUntil time.Time)
	// Disable stops generation immediately.
	Disable()
}

// factories applies each lifecycle step to every protected factory.
type factories []Factory

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
