package lease

import (
	"fmt"
	"time"

	"github.com/once-go/once/lease/driver"
)

// defaultLowFreeIDs is the default of Options.LowFreeIDs: an eighth of the
// 512 machine IDs.
const defaultLowFreeIDs = 64

// machineIDs returns the machine IDs s may take: its [driver.Ranged]
// range, or all 512.
func machineIDs(s driver.Strategy) driver.IDRange {
	if r, ok := s.(driver.Ranged); ok {
		if ids := r.MachineIDs(); ids.Valid() {
			return ids
		}
	}
	return driver.AllIDs()
}

// countFree reports how many machine IDs are free, when the strategy
// implements [Lister]: the IDs it may take (all 512, or its
// [driver.Ranged] range) minus those it lists, in an EventPool event,
// which warns when fewer than Options.LowFreeIDs are free, then compares
// the holders' key fingerprints with the manager's (checkKeys). It runs after
// each acquire and successful renewal, on the manager's goroutine, bounded
// by ReleaseTimeout and by when the next renewal is due; the lease does
// not depend on it, and a List that fails or outlives that bound only
// leaves the count unknown for this round.
func (m *Manager) countFree(src origin) {
	lister, ok := m.s.(driver.Lister)
	if !ok {
		return
	}
	deadline := time.Now().Add(m.o.ReleaseTimeout)
	if due := m.sent.Add(m.tm.renewAfter(m.o.RenewInterval, m.cur.TTL)); due.Before(deadline) {
		deadline = due
	}
	began := time.Now()
	var slots []driver.Slot
	var err error
	if deadline.Sub(began) <= 0 {
		// The renewal took longer than the renew interval: the next one
		// is due now, and comes first.
		err = fmt.Errorf("%w: no time left before the next renewal to list the held machine IDs", ErrTimeout)
	} else {
		slots, err = m.list(m.leaseCtx, lister, deadline)
	}
	if m.leaseCtx.Err() != nil {
		return // lost or closing: the count does not matter now
	}
	e := record{Event: Event{Kind: EventPool, MachineID: m.cur.MachineID, Duration: time.Since(began), Err: err}, source: src}
	if err == nil {
		ids := machineIDs(m.s)
		held := make(map[int]bool, len(slots))
		for _, s := range slots {
			if ids.Contains(s.MachineID) {
				held[s.MachineID] = true
			}
		}
		e.FreeIDs, e.result = ids.Len()-len(held), "ok"
		if e.FreeIDs < m.o.LowFreeIDs {
			e.result = "low"
		}
	}
	m.emit(e)
	if err == nil {
		m.checkKeys(slots, m.cur.MachineID, src)
	}
}
