package lease

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/once-go/once/lease/driver"
)

// fingerprint is the key fingerprint the factories share: that of every
// factory that has a base key, "" when none has one or they differ (the
// manager then records none and compares none).
func (fs factories) fingerprint() string {
	fp := ""
	for _, f := range fs {
		k, ok := f.(interface{ Fingerprint() string })
		if !ok || isNil(f) {
			continue
		}
		switch g := k.Fingerprint(); {
		case g == "":
		case fp == "":
			fp = g
		case g != fp:
			return ""
		}
	}
	return fp
}

// maxMismatchNamed bounds how many holders a key mismatch names.
const maxMismatchNamed = 3

// checkKeys compares the key fingerprints of the holders in slots, but
// that of machine ID own, with the manager's. When one differs (an unknown
// fingerprint never does) it emits an [EventKeyMismatch], logged as a
// warning, and returns its error.
func (m *Manager) checkKeys(slots []driver.Slot, own int, src origin) error {
	if m.fp == "" {
		return nil
	}
	var other []driver.Slot
	for _, s := range slots {
		if s.MachineID != own && s.Fingerprint != "" && s.Fingerprint != m.fp {
			other = append(other, s)
		}
	}
	if len(other) == 0 {
		return nil
	}
	var b strings.Builder
	for i, s := range other[:min(len(other), maxMismatchNamed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		holder := s.Holder
		if holder == "" {
			holder = "-"
		}
		fmt.Fprintf(&b, "machine ID %d (holder %s, key fingerprint %s)", s.MachineID, holder, s.Fingerprint)
	}
	if len(other) > maxMismatchNamed {
		fmt.Fprintf(&b, " and %d more", len(other)-maxMismatchNamed)
	}
	err := fmt.Errorf("%w: %d live holder(s) in the pool use another base key than this process (key fingerprint %s): %s; "+
		"they cannot read each other's masked IDs: give every instance sharing the pool the same key",
		ErrConfig, len(other), m.fp, b.String())
	m.emit(record{Event: Event{Kind: EventKeyMismatch, MachineID: other[0].MachineID, Err: err}, source: src})
	return err
}

// refuseKeyMismatch runs Start's check of Options.RefuseKeyMismatch before
// the first acquisition: it lists the pool and fails when a live holder
// (other than the lease in the state file, this process's own) records
// another key fingerprint. A listing that fails is logged, and the start
// goes on.
func (m *Manager) refuseKeyMismatch() error {
	lister := m.s.(driver.Lister) // checked by Start
	deadline := time.Now().Add(m.o.ReleaseTimeout)
	if m.o.AcquireTimeout != noTimeout {
		deadline = time.Now().Add(m.o.AcquireTimeout)
	}
	slots, err := m.list(m.life, lister, deadline)
	if err != nil {
		m.o.Logger.Warn("lease key check skipped: the pool could not be listed", "strategy", m.name, "reason", err.Error())
		return nil
	}
	own := -1
	if m.reclaim != nil {
		own = m.reclaim.MachineID
	}
	if err := m.checkKeys(slots, own, sourceInitial); err != nil {
		return fmt.Errorf("%w; Options.RefuseKeyMismatch is set, so Start refuses (unset it to only warn)", err)
	}
	return nil
}

// list runs lister.List bounded by deadline (and parent); a call that
// outlives it is left to end on its own, its answer dropped.
func (m *Manager) list(parent context.Context, lister driver.Lister, deadline time.Time) ([]driver.Slot, error) {
	budget := time.Until(deadline)
	if budget <= 0 {
		return nil, fmt.Errorf("%w: no time left to list the held machine IDs", ErrTimeout)
	}
	type listed struct {
		slots []driver.Slot
		err   error
	}
	ctx, cancel := context.WithDeadline(parent, deadline)
	defer cancel()
	ch := make(chan listed, 1)
	go func() {
		slots, err := lister.List(ctx)
		ch <- listed{slots, err}
	}()
	select {
	case r := <-ch:
		return r.slots, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: listing the held machine IDs took longer than %v", ErrTimeout, budget.Round(time.Millisecond))
	}
}
