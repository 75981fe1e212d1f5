package leasetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/once-go/once/lease/driver"
)

// faulty is Memory with one deliberate bug, named by fault. Each bug breaks
// one property the suite checks; TestSuiteCatchesFaults proves the suite
// notices.
type faulty struct {
	m     *Memory
	fault string
	det   bool // claims to be deterministic
	id    int  // det-different-ids: this contender's ID
}

func (f *faulty) Name() string        { return "faulty-" + f.fault }
func (f *faulty) Deterministic() bool { return f.det != (f.fault == "wrong-deterministic") }

func (f *faulty) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	m := f.m
	switch f.fault {
	case "ignores-context":
		ctx = context.Background()
	case "leaks-on-cancel":
		if ctx.Err() != nil {
			_, _ = m.Acquire(context.Background(), d)
			return driver.Lease{}, fmt.Errorf("%w: %w", driver.ErrRetry, ctx.Err())
		}
	case "double-grant":
		m.mu.Lock()
		id := len(m.slots) / 3
		m.slots[id] = memorySlot{token: newToken(), expires: time.Now().Add(d)}
		l := driver.Lease{MachineID: id, Token: m.slots[id].token, TTL: d}
		m.mu.Unlock()
		return l, nil
	case "conflict-when-full":
		l, err := m.Acquire(ctx, d)
		if errors.Is(err, driver.ErrExhausted) {
			err = fmt.Errorf("%w (really exhausted)", driver.ErrConflict)
		}
		return l, err
	case "check-then-set":
		return f.racyAcquire(ctx, d)
	case "det-different-ids":
		return driver.Lease{MachineID: f.id, Token: "det", TTL: d}, nil
	}
	l, err := m.Acquire(ctx, d)
	switch f.fault {
	case "short-ttl":
		l.TTL = d / 2
	case "long-ttl":
		l.TTL = 2 * d
	case "release-ignores-hold":
		l.ReleaseHold = fakeHold
	}
	return l, err
}

// fakeHold is the release hold "release-ignores-hold" reports but does not
// keep (its Memory frees a released ID at once).
const fakeHold = 50 * time.Millisecond

// racyAcquire finds a free ID and claims it in two steps, so racing
// contenders can claim the same ID.
func (f *faulty) racyAcquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	if err := f.m.check(ctx, d); err != nil {
		return driver.Lease{}, err
	}
	m := f.m
	m.mu.Lock()
	now, id := time.Now(), -1
	for i := range m.slots {
		if !now.Before(m.slots[i].expires) {
			id = i
			break
		}
	}
	m.mu.Unlock()
	if id < 0 {
		return driver.Lease{}, driver.ErrExhausted
	}
	runtime.Gosched()
	time.Sleep(time.Millisecond)
	token := newToken()
	m.mu.Lock()
	m.slots[id] = memorySlot{token: token, expires: time.Now().Add(d)}
	m.mu.Unlock()
	return driver.Lease{MachineID: id, Token: token, TTL: d}, nil
}

func (f *faulty) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	m := f.m
	switch f.fault {
	case "ignores-context":
		ctx = context.Background()
	case "lost-on-cancel":
		if ctx.Err() != nil {
			return driver.Lease{}, fmt.Errorf("%w: %w", driver.ErrLost, ctx.Err())
		}
	case "renew-ignores-token":
		if l.MachineID >= 0 && l.MachineID < len(m.slots) {
			m.mu.Lock()
			m.slots[l.MachineID] = memorySlot{token: l.Token, expires: time.Now().Add(d)}
			m.mu.Unlock()
		}
		l.TTL = d
		return l, nil
	case "renew-no-extend":
		if _, err := m.Renew(ctx, l, time.Nanosecond); err != nil {
			return driver.Lease{}, err
		}
		m.mu.Lock()
		m.slots[l.MachineID].expires = time.Now().Add(-time.Nanosecond)
		m.mu.Unlock()
		l.TTL = d
		return l, nil
	case "rotating-token":
		m.mu.Lock()
		defer m.mu.Unlock()
		sl, err := m.slot(l)
		if err != nil {
			return driver.Lease{}, err
		}
		sl.token, sl.expires = newToken(), time.Now().Add(d)
		l.Token, l.TTL = sl.token, d
		return l, nil
	case "det-different-ids":
		l.TTL = d
		return l, nil
	}
	nl, err := m.Renew(ctx, l, d)
	switch f.fault {
	case "id-changes":
		nl.MachineID = (nl.MachineID + 1) % len(m.slots)
	case "short-ttl":
		nl.TTL = d / 2
	case "long-ttl":
		nl.TTL = 2 * d
	case "release-ignores-hold":
		nl.ReleaseHold = fakeHold
	}
	return nl, err
}

func (f *faulty) Release(ctx context.Context, l driver.Lease) error {
	switch f.fault {
	case "release-by-id":
		f.m.mu.Lock()
		if l.MachineID >= 0 && l.MachineID < len(f.m.slots) {
			f.m.slots[l.MachineID].expires = time.Now()
		}
		f.m.mu.Unlock()
		return nil
	case "release-noop", "det-different-ids":
		return nil
	}
	return f.m.Release(ctx, l)
}

// brokenLost is an unreachable coordinator that misreports as ErrLost.
type brokenLost struct{ unreachable }

func (brokenLost) Acquire(context.Context, time.Duration) (driver.Lease, error) {
	return driver.Lease{}, fmt.Errorf("%w: connection refused", driver.ErrLost)
}

func (f *faulty) List(ctx context.Context) ([]driver.Slot, error) {
	slots, err := f.m.List(ctx)
	switch f.fault {
	case "list-no-holder":
		for i := range slots {
			slots[i].Holder = ""
		}
	case "list-descending":
		slices.Reverse(slots)
	case "list-keeps-released":
		f.m.mu.Lock()
		slots = slots[:0]
		for id, sl := range f.m.slots {
			if sl.token != "" {
				slots = append(slots, driver.Slot{MachineID: id, Holder: sl.holder, Token: sl.token})
			}
		}
		f.m.mu.Unlock()
	}
	return slots, err
}
