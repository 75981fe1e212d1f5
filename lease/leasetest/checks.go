package leasetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// ttlRounding is how far below the requested duration a reported TTL may
// be (coordinators count in milliseconds or microseconds).
const ttlRounding = time.Millisecond

// ttlSlack is how far above the requested duration a dynamic strategy's
// reported TTL may be (a coordinator that rounds up to whole seconds).
const ttlSlack = time.Second

// checkTTL checks that a granted TTL is what was asked for, within rounding.
func (s *suite) checkTTL(t *testing.T, what string, g granted, d time.Duration) {
	t.Helper()
	if g.TTL < d-ttlRounding {
		t.Errorf("%s: reported TTL %v is shorter than the requested %v", what, g.TTL, d)
	}
	if !s.h.Deterministic && g.TTL > d+ttlSlack {
		t.Errorf("%s: reported TTL %v is longer than the requested %v; the manager would trust the lease past the coordinator's expiry", what, g.TTL, d)
	}
}

// checkID checks that a machine ID lies in the namespace.
func (s *suite) checkID(t *testing.T, what string, id int) {
	t.Helper()
	hi := s.h.Capacity
	if s.h.Deterministic {
		hi = leasekit.IDs
	}
	if id < 0 || id >= hi {
		t.Fatalf("%s: machine ID %d outside 0..%d", what, id, hi-1)
	}
}

func (s *suite) checkDeterministicFlag(t *testing.T) {
	st := s.h.New(t)()
	if st.Name() == "" {
		t.Error("Name() is empty")
	}
	if got := st.Deterministic(); got != s.h.Deterministic {
		t.Errorf("Deterministic() = %v, the harness says %v", got, s.h.Deterministic)
	}
}

func (s *suite) checkFirstAcquire(t *testing.T) {
	st := s.h.New(t)()
	g := mustAcquire(t, st, longTTL)
	s.checkID(t, "Acquire", g.MachineID)
	s.checkTTL(t, "Acquire", g, longTTL)
	if err := callRelease(t, t.Context(), st, g.Lease); err != nil {
		t.Errorf("Release of a lease just acquired: %v", err)
	}
}

func (s *suite) checkRenewKeepsID(t *testing.T) {
	st := s.h.New(t)()
	g := mustAcquire(t, st, longTTL)
	for i := range 3 {
		d := longTTL + time.Duration(i)*time.Second
		g = mustRenew(t, st, g.Lease, d)
		s.checkTTL(t, "Renew", g, d)
	}
}

func (s *suite) checkRenewReplay(t *testing.T) {
	st := s.h.New(t)()
	g0 := mustAcquire(t, st, longTTL)
	g1 := mustRenew(t, st, g0.Lease, longTTL)
	// The reply to the first renewal was "lost": the caller renews the
	// lease it had, again. This must succeed, as must renewing the result.
	g2 := mustRenew(t, st, g0.Lease, longTTL)
	s.checkTTL(t, "replayed Renew", g2, longTTL)
	mustRenew(t, st, g1.Lease, longTTL)
	mustRenew(t, st, g2.Lease, longTTL)
}

func (s *suite) checkContextCanceled(t *testing.T) {
	contender := s.h.New(t)
	st := contender()
	held := mustAcquire(t, st, longTTL)

	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"canceled", canceled}, {"expired", expired}} {
		_, err := callAcquire(t, c.ctx, contender(), longTTL)
		if err == nil && !s.h.Deterministic {
			t.Errorf("Acquire with a %s context succeeded", c.name)
		}
		_, err = callRenew(t, c.ctx, st, held.Lease, longTTL)
		if err == nil && !s.h.Deterministic {
			t.Errorf("Renew with a %s context succeeded", c.name)
		}
		if errors.Is(err, driver.ErrLost) || errors.Is(err, driver.ErrConfig) {
			t.Errorf("Renew with a %s context: %v; a context ending says nothing about ownership (want ErrRetry)", c.name, err)
		}
		_ = callRelease(t, c.ctx, st, held.Lease)
	}
	// The lease is unaffected by the aborted calls.
	mustRenew(t, st, held.Lease, longTTL)
}

func (s *suite) checkSameIDAgain(t *testing.T) {
	contender := s.h.New(t)
	a, b := contender(), contender()
	ga := mustAcquire(t, a, longTTL)
	gb := mustAcquire(t, b, longTTL)
	if ga.MachineID != gb.MachineID {
		t.Errorf("two contenders of a deterministic strategy got machine IDs %d and %d", ga.MachineID, gb.MachineID)
	}
	if err := callRelease(t, t.Context(), a, ga.Lease); err != nil {
		t.Errorf("Release: %v", err)
	}
	if g := mustAcquire(t, a, longTTL); g.MachineID != ga.MachineID {
		t.Errorf("Acquire after Release gave machine ID %d, before %d", g.MachineID, ga.MachineID)
	}
}

func (s *suite) checkBroken(t *testing.T) {
	// A real lease, so that Renew and Release get a well-formed token.
	held := mustAcquire(t, s.h.New(t)(), longTTL)
	b := s.h.Broken(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	want := func(op string, err error) {
		t.Helper()
		switch {
		case err == nil:
			t.Errorf("%s on an unreachable coordinator succeeded", op)
		case !errors.Is(err, driver.ErrRetry):
			t.Errorf("%s on an unreachable coordinator: %v; want driver.ErrRetry", op, err)
		case errors.Is(err, driver.ErrLost) || errors.Is(err, driver.ErrConfig):
			t.Errorf("%s on an unreachable coordinator: %v; matches ErrLost or ErrConfig as well as ErrRetry", op, err)
		}
	}
	_, err := callAcquire(t, ctx, b, longTTL)
	want("Acquire", err)
	_, err = callRenew(t, ctx, b, held.Lease, longTTL)
	want("Renew", err)
	want("Release", callRelease(t, ctx, b, held.Lease))
}
