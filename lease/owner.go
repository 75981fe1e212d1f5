package lease

import (
	"reflect"
	"sync"
)

// owners records which live manager protects each factory: two managers on
// one factory would activate, extend and disable each other's lease state.
// A manager owns its factories from Start until its goroutine ends (Close
// or a final loss), including while it has them disabled after a loss.
var owners = struct {
	sync.Mutex
	by map[factory]*Manager
}{by: map[factory]*Manager{}}

// own makes m the owner of its factories, or fails with ErrConfig naming
// the first factory listed twice or owned by another live manager. A
// factory whose dynamic type cannot be a map key is not tracked.
func (m *Manager) own() error {
	owners.Lock()
	defer owners.Unlock()
	for i, f := range m.fs {
		if !reflect.TypeOf(f).Comparable() {
			continue
		}
		for j, g := range m.fs[:i] {
			if reflect.TypeOf(g).Comparable() && g == f {
				m.disownLocked()
				return configError("Factories[%d] is Factories[%d] again: list each factory once", i, j)
			}
		}
		if o := owners.by[f]; o != nil && o != m {
			m.disownLocked()
			return configError("Factories[%d] is protected by another lease manager (strategy %s) that is not closed: Close that manager first, or give this one a factory of its own", i, o.name)
		}
		owners.by[f] = m
	}
	return nil
}

// disown lets go of m's factories.
func (m *Manager) disown() {
	owners.Lock()
	defer owners.Unlock()
	m.disownLocked()
}

func (m *Manager) disownLocked() {
	for _, f := range m.fs {
		if reflect.TypeOf(f).Comparable() && owners.by[f] == m {
			delete(owners.by, f)
		}
	}
}
