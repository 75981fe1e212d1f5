// Package leasehook lets the repository's tests (the fault suite's holder
// processes among them) hand a lease manager factories that are not
// *nonce.Factory, to record what the manager does to them (the order of
// activations and disables, the deadlines, the hand-off bound) or to skew
// their clocks. Applications list their factories in
// lease.Options.Factories; the once CLI, a module of its own, imports no
// internal package of the root module.
//
//	m, err := lease.Start(leasehook.With(ctx, recorder), strategy, opts)
package leasehook

import (
	"context"
	"time"
)

// Factory is the lifecycle the lease manager drives; *nonce.Factory has
// it.
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

type key struct{}

// With returns a copy of ctx that carries fs (after any factories ctx
// carries already). lease.Start, given that context, protects fs after
// the options' Factories, exactly as it protects those.
func With(ctx context.Context, fs ...Factory) context.Context {
	return context.WithValue(ctx, key{}, append(append([]Factory(nil), From(ctx)...), fs...))
}

// From returns the factories ctx carries.
func From(ctx context.Context) []Factory {
	fs, _ := ctx.Value(key{}).([]Factory)
	return fs
}
