package leasetest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Memory is a correct in-memory coordinator and [driver.Strategy]: one
// namespace of machine IDs, shared by every goroutine that uses it. It reads
// the clock with time.Now, so it follows testing/synctest's fake clock.
//
// Acquire takes the lowest ID whose lease has expired; Renew and Release
// match on machine ID and token, as the SQL strategy does; Reclaim replaces
// the token. Like the SQL
// strategy it reports the previous expiry (the Unix epoch for an ID never
// held, as the SQL table's pre-populated rows have it) and its clock with
// every lease. Memory also implements [driver.Reclaimer] and
// [driver.Lister] (its own leases list the holder [driver.Slot.Holder]
// of this process, "host/pid", and the key fingerprint the call's context
// carries, [driver.KeyFingerprint]; stolen ones none). Use it in the tests of
// code that runs a lease manager; [Memory.Expire] and
// [Memory.Steal] simulate what other processes do, [Memory.SetReleaseHold]
// makes it keep released IDs taken for a while, as the Redis strategy does.
type Memory struct {
	mu    sync.Mutex
	slots []memorySlot
	hold  time.Duration // see SetReleaseHold
}

// neverHeld is the previous expiry Memory reports for an ID nobody held.
var neverHeld = time.Unix(0, 0).UTC()

type memorySlot struct {
	token   string
	expires time.Time
	holder  string
}

var (
	_ driver.Strategy  = (*Memory)(nil)
	_ driver.Reclaimer = (*Memory)(nil)
	_ driver.Lister    = (*Memory)(nil)
)

// NewMemory returns an empty namespace of capacity machine IDs
// (0..capacity-1); capacity <= 0 means 512.
func NewMemory(capacity int) *Memory {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Memory{slots: make([]memorySlot, capacity)}
}

// Name returns "memory".
func (m *Memory) Name() string { return "memory" }

// Deterministic returns false.
func (m *Memory) Deterministic() bool { return false }

func (m *Memory) check(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", driver.ErrRetry, err)
	}
	if d <= 0 {
		return fmt.Errorf("%w: lease duration %v", driver.ErrConfig, d)
	}
	return nil
}

// Acquire claims the lowest free machine ID for d.
func (m *Memory) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	if err := m.check(ctx, d); err != nil {
		return driver.Lease{}, err
	}
	token := newToken()
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for id := range m.slots {
		sl := &m.slots[id]
		if now.Before(sl.expires) {
			continue
		}
		prev := sl.expires
		if prev.IsZero() {
			prev = neverHeld
		}
		*sl = memorySlot{token: token, expires: now.Add(d), holder: leasekit.WithKey(leasekit.Holder(), driver.KeyFingerprint(ctx))}
		return driver.Lease{MachineID: id, Token: token, TTL: d, PrevExpiry: prev, CoordinatorNow: now, ReleaseHold: m.hold}, nil
	}
	return driver.Lease{}, fmt.Errorf("%w (memory, %d IDs)", driver.ErrExhausted, len(m.slots))
}

// Renew extends l for d if its token still holds the machine ID (even when
// it has expired but was not taken over, like the SQL strategy).
func (m *Memory) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	if err := m.check(ctx, d); err != nil {
		return driver.Lease{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sl, err := m.slot(l)
	if err != nil {
		return driver.Lease{}, err
	}
	now := time.Now()
	sl.expires = now.Add(d)
	l.TTL, l.CoordinatorNow, l.PrevExpiry, l.ReleaseHold = d, now, time.Time{}, m.hold
	return l, nil
}

// Reclaim takes l back from its machine ID and token alone and replaces
// the token, as every [driver.Reclaimer] must: l's token no longer renews
// or releases anything. It reports the lease's expiry before the reclaim
// as PrevExpiry.
func (m *Memory) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	if err := m.check(ctx, d); err != nil {
		return driver.Lease{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sl, err := m.slot(l)
	if err != nil {
		return driver.Lease{}, err
	}
	now, prev := time.Now(), sl.expires
	sl.token, sl.expires, sl.holder = newToken(), now.Add(d), leasekit.WithKey(leasekit.Holder(), driver.KeyFingerprint(ctx))
	return driver.Lease{MachineID: l.MachineID, Token: sl.token, TTL: d, PrevExpiry: prev, CoordinatorNow: now, ReleaseHold: m.hold}, nil
}

// Release ends l now if its token still holds the machine ID; otherwise it
// does nothing. With a release hold (see [Memory.SetReleaseHold]) the
// lease ends that long after the release instead, whatever was left of it.
func (m *Memory) Release(ctx context.Context, l driver.Lease) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", driver.ErrRetry, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if sl, err := m.slot(l); err == nil {
		if m.hold > 0 {
			sl.expires = time.Now().Add(m.hold)
		} else {
			sl.expireBy(time.Now())
		}
	}
	return nil
}

// SetReleaseHold makes Release keep a machine ID taken for d after the
// release (as the Redis strategy's Options.ReleaseHold does), and every
// lease Memory hands out report ReleaseHold d. d <= 0 (the default): a
// release frees the ID at once. Set it before the first Acquire.
func (m *Memory) SetReleaseHold(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hold = max(d, 0)
}

func (m *Memory) slot(l driver.Lease) (*memorySlot, error) {
	if l.MachineID < 0 || l.MachineID >= len(m.slots) || l.Token == "" || m.slots[l.MachineID].token != l.Token {
		return nil, fmt.Errorf("%w: machine ID %d is not held with this token", driver.ErrLost, l.MachineID)
	}
	return &m.slots[l.MachineID], nil
}

// List returns the machine IDs whose leases are live now, ascending, with
// their remaining TTL, holder and token.
func (m *Memory) List(ctx context.Context) ([]driver.Slot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", driver.ErrRetry, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []driver.Slot
	now := time.Now()
	for id, sl := range m.slots {
		if now.Before(sl.expires) {
			holder, fp := leasekit.SplitKey(sl.holder)
			out = append(out, driver.Slot{MachineID: id, TTL: sl.expires.Sub(now), Holder: holder, Fingerprint: fp, Token: sl.token})
		}
	}
	return out, nil
}

// Expire makes the lease on machineID run out now, as if its holder had
// stopped renewing long ago. The token is kept: the holder's next Renew
// still succeeds unless someone takes the ID over first.
func (m *Memory) Expire(machineID int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if machineID >= 0 && machineID < len(m.slots) {
		m.slots[machineID].expireBy(time.Now())
	}
}

// Steal gives machineID to another, unnamed holder for d, whatever its
// state: the current holder's next Renew fails with [driver.ErrLost].
func (m *Memory) Steal(machineID int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if machineID >= 0 && machineID < len(m.slots) {
		m.slots[machineID] = memorySlot{token: newToken(), expires: time.Now().Add(d)}
	}
}

// Holder reports the token holding machineID and until when, and whether
// the lease is live now.
func (m *Memory) Holder(machineID int) (token string, expires time.Time, live bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if machineID < 0 || machineID >= len(m.slots) {
		return "", time.Time{}, false
	}
	sl := m.slots[machineID]
	return sl.token, sl.expires, time.Now().Before(sl.expires)
}

// Held counts the machine IDs whose leases are live now.
func (m *Memory) Held() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	now, n := time.Now(), 0
	for _, sl := range m.slots {
		if now.Before(sl.expires) {
			n++
		}
	}
	return n
}

// expireBy moves the expiry back to now if it is later.
func (sl *memorySlot) expireBy(now time.Time) {
	if now.Before(sl.expires) {
		sl.expires = now
	}
}

func newToken() string { return leasekit.NewTokenString() }
