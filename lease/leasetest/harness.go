package leasetest

import (
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// Harness describes a strategy under test.
type Harness struct {
	// New prepares one fresh, empty coordinator namespace (own table / key
	// name), registers its cleanup with t.Cleanup, and returns a constructor
	// of contenders: each call returns an independent Strategy on that same
	// namespace, as a separate process would hold.
	New func(t *testing.T) (contender func() driver.Strategy)
	// Broken returns a strategy whose coordinator cannot be reached (closed
	// pool, dead port); every call must fail with driver.ErrRetry (not
	// ErrLost, not ErrConfig). Nil skips that check.
	Broken func(t *testing.T) driver.Strategy
	// Range, for a strategy that can be restricted to a range of machine
	// IDs (Options.MachineIDs), prepares a fresh, empty namespace as New
	// does and returns a constructor of contenders on it restricted to r,
	// returning the error the strategy's constructor returns for r (a
	// range that is empty or outside 0..511 must be refused with
	// driver.ErrConfig). Nil skips the range checks.
	Range func(t *testing.T, r driver.IDRange) (contender func() (driver.Strategy, error))
	// Deterministic strategies (env, host) set this; the suite then runs
	// only the checks that apply.
	Deterministic bool
	// Capacity is how many IDs the namespace holds (default 512).
	Capacity int
	// ShortTTL is the lease duration used when a test must wait for expiry
	// (default 1s).
	ShortTTL time.Duration
	// ClockTick is the resolution of the coordinator's clock, when a
	// released ID becomes free only once that clock has moved past the
	// release (SQL: release sets expires_at = now, and a row is free while
	// expires_at < now; SQLite's clock has milliseconds). A check that
	// acquires a just-released ID tries again once, after ClockTick, if the
	// first attempt finds every ID taken. Zero: free at once.
	ClockTick time.Duration
}

// Defaults used when the corresponding [Harness] field is zero.
const (
	DefaultCapacity = nonce.MaxMachineID + 1
	DefaultShortTTL = time.Second
)

// longTTL is the duration of leases that must outlive the whole check.
const longTTL = 10 * time.Minute

// Run runs the conformance checks against the strategy h describes, each as
// a subtest named after the property it checks. Every check that needs a
// coordinator starts from a fresh namespace made by h.New.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil {
		t.Fatal("leasetest: Harness.New is nil")
	}
	if h.Capacity <= 0 {
		h.Capacity = DefaultCapacity
	}
	if h.ShortTTL <= 0 {
		h.ShortTTL = DefaultShortTTL
	}
	s := &suite{h: h}
	t.Run("Deterministic", s.checkDeterministicFlag)
	t.Run("FirstAcquire", s.checkFirstAcquire)
	t.Run("RenewKeepsMachineID", s.checkRenewKeepsID)
	t.Run("RenewReplay", s.checkRenewReplay)
	t.Run("ContextCanceled", s.checkContextCanceled)
	if !h.Deterministic {
		t.Run("Reclaim", s.checkReclaim)
		t.Run("Claim", s.checkClaim)
		t.Run("List", s.checkList)
		t.Run("KeyFingerprint", s.checkKeyFingerprint)
	}
	if h.Deterministic {
		t.Run("SameIDAgain", s.checkSameIDAgain)
	} else {
		t.Run("Lifecycle", s.checkLifecycle)
		t.Run("AbortedAcquires", s.checkAbortedAcquires)
		t.Run("ConcurrentExhaustion", s.checkConcurrentExhaustion)
	}
	if h.Range != nil {
		t.Run("MachineIDs", s.checkMachineIDs)
	}
	if h.Broken != nil {
		t.Run("BrokenRetry", s.checkBroken)
	}
}

type suite struct {
	h Harness
}
