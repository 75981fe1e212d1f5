package faultsuite

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/nonce"
)

// Hand-off with skewed clocks.
//
// The old holder of a machine ID stops generating at its own deadline,
// sent + TTL - margin on its monotonic clock, which is at least a margin
// before the coordinator's expiry E; its timestamps come from its wall
// clock, skewOld ahead of true time: they are at most E - margin + skewOld.
// The new holder gets the ID only after E, at A, and its first timestamp is
//
//	SQL (PrevExpiry = E reported): >= max(its clock, E + HandoffSkew)
//	Redis (CoordinatorNow >= E):   >= max(its clock, E + HandoffSkew - min(margin, ReleaseHold))
//	etcd (neither):                >= A + skewNew + 2*HandoffSkew - min(margin, ReleaseHold)
//
// So the SQL hand-off is safe while skewOld < HandoffSkew + margin,
// whatever the new holder's clock; the Redis one while skewOld <
// HandoffSkew + margin - min(margin, ReleaseHold) (HandoffSkew with the
// default ReleaseHold, 1s, above the suite's margin); the etcd one while
// skewOld - skewNew < 2*HandoffSkew. TestHandoffSkew keeps every
// coordinator without PrevExpiry inside the margin.
//
// On etcd the new holder's first timestamp waits about 2*HandoffSkew -
// margin on its clock: nothing in production (margin 10s), but 1.8s with
// the suite's leases, their whole safe window. So the new holder on etcd
// takes longer leases (newHolderLease).
//
// A release ends the old holder's generation just before the coordinator
// frees the ID, not a margin before: see TestHandoffRelease.

// skews returns the clock offsets of the old and the new holder the test
// uses for c: inside what guards c's hand-off, with the new holder's clock
// behind (the harder case).
func skews(c Coordinator) (old, new time.Duration) {
	if c.PrevExpiry {
		// Old holder 1.1s ahead: past the margin (0.2s), inside
		// HandoffSkew (1s) + margin. New holder 0.3s behind.
		return 1100 * time.Millisecond, -300 * time.Millisecond
	}
	// 160ms apart in all, inside the margin (0.2s).
	return 120 * time.Millisecond, -40 * time.Millisecond
}

// newHolderLease returns the rig options of a hand-off's new holder on c,
// skewed by skew. A coordinator that reports no clock reading (etcd) gets
// 4s leases: its margin (400ms) and window (3.6s) leave the wait for the
// hand-off guard, 2*HandoffSkew - margin = 1.6s, room for values.
func newHolderLease(c Coordinator, skew time.Duration) rigOptions {
	o := rigOptions{skew: skew, handoffSkew: handoffSkew, acquireTimeout: 20 * time.Second}
	if _, isRedis := redisMode(c); !c.PrevExpiry && !isRedis {
		o.leaseDur, o.renewEvery = 4*time.Second, 2*time.Second
	}
	return o
}

// startNewHolder starts a hand-off's new holder on c, skewed by skew, the
// moment id is free; it fails the test unless the holder gets id, and
// returns the rig, closed after 50 values, with what it drew.
func startNewHolder(t *testing.T, c Coordinator, cl *Client, id int, skew time.Duration) (*rig, []draw) {
	t.Helper()
	r := startRig(t, cl.mustStrategy(t, false), newHolderLease(c, skew))
	if got := r.m.MachineID(); got != id {
		t.Fatalf("new holder got machine ID %d, want the old holder's %d", got, id)
	}
	r.gen.waitValues(t, time.Now(), 50, 5*time.Second)
	return r, r.close()
}

// TestHandoffSkew: a holder process with a skewed clock holds the only
// free ID and is cut off its coordinator (it generates until its
// deadline); an in-process holder with a clock skewed the other way starts
// the moment the coordinator frees the ID and takes it over. Every value the
// new holder draws has a timestamp above anything the old holder could
// have drawn (its clock at its last deadline), and no value repeats.
func HandoffSkew(t *testing.T) {
	t.Parallel()
	forEachParallel(t, nil, func(t *testing.T, c Coordinator) {
		oldSkew, newSkew := skews(c)
		testHandoff(t, c, oldSkew, newSkew, true)
	})
}

// TestHandoffSkewBeyondMargin measures (FAULTSUITE_MEASURE=1; it asserts
// nothing) what happens to coordinators without PrevExpiry when the
// clocks are as far apart as TestHandoffSkew allows for SQL: the new
// holder's timestamps overlap the old holder's by skewOld - skewNew -
// margin, and values can repeat.
func HandoffSkewBeyondMargin(t *testing.T) {
	if os.Getenv("FAULTSUITE_MEASURE") != "1" {
		t.Skip("measurement; set FAULTSUITE_MEASURE=1")
	}
	forEach(t, func(c Coordinator) bool { return !c.PrevExpiry }, func(t *testing.T, c Coordinator) {
		testHandoff(t, c, 1100*time.Millisecond, -300*time.Millisecond, false)
	})
}

func testHandoff(t *testing.T, c Coordinator, oldSkew, newSkew time.Duration, strict bool) {
	t.Helper()
	sp := c.Setup(t, false)
	cl := c.open(t, sp, nil, 4)
	fillAllBut(t, sp, cl, 7, time.Minute)
	old := startHolder(t, c, sp, holderArgs{skew: oldSkew, handoffSkew: handoffSkew})
	id := old.id()
	old.waitValues(time.Now(), 50, 3*time.Second)
	// Cut the old holder off its coordinator right after a renewal: it
	// goes on generating until its deadline (the worst case for the new
	// holder), then stops and can get no lease again.
	old.waitLife(lifeExtend, time.Now(), 2*time.Second)
	old.signal(syscall.SIGUSR1)
	// Start the new holder the moment the coordinator frees the ID, so
	// that it starts generating as early as it possibly can.
	ctx := ctxFor(t, 10*time.Second)
	exp, held, err := sp.Expiry(ctx, id)
	if err != nil || !held {
		t.Fatalf("ID %d after the cut: held %v, %v", id, held, err)
	}
	time.Sleep(time.Until(exp))
	freeAt := awaitFree(t, ctx, sp, id)
	r, newDraws := startNewHolder(t, c, cl, id, newSkew)
	old.kill()

	grant, _ := old.lastGrant()
	// The old holder's clock at its last deadline: the highest timestamp
	// it could have drawn (in whole milliseconds).
	oldPossible := grant.validUntil.Add(oldSkew).Truncate(time.Millisecond)
	oldSeen, _ := maxTimestamp(old.snapshot())
	newMin, ok := minTimestamp(newDraws)
	if !ok {
		t.Fatal("the new holder drew nothing")
	}
	act, _ := r.rf.last(lifeActivate)
	headroom := newMin.Sub(oldPossible)
	if !strict {
		seen := map[uint64]string{}
		for _, d := range old.snapshot() {
			if d.err == nil {
				seen[d.v] = "old"
			}
		}
		dups := 0
		for _, d := range newDraws {
			if _, dup := seen[d.v]; d.err == nil && dup {
				dups++
			}
		}
		t.Logf("skews old %+v new %+v (margin %v): new holder's first timestamp %v after the old holder's last possible one; %d of its values repeat the old holder's",
			oldSkew, newSkew, margin, headroom, dups)
		return
	}
	if !newMin.After(oldPossible) {
		t.Errorf("new holder's first timestamp %s is not after the old holder's last possible %s (old clock %+v, new %+v)",
			clock(newMin), clock(oldPossible), oldSkew, newSkew)
	}
	if oldSeen.After(oldPossible) {
		t.Errorf("old holder drew timestamp %s after its deadline's %s", clock(oldSeen), clock(oldPossible))
	}
	seen := map[uint64]string{}
	nOld := old.check(oldSkew, seen)
	nNew := checkDraws(t, "new holder", newDraws, r.rf.events(), newSkew, seen)
	for _, d := range newDraws {
		if d.err == nil && nonce.Split64(d.v, time.Time{}).MachineID != id {
			t.Fatalf("new holder drew a value of machine ID %d", nonce.Split64(d.v, time.Time{}).MachineID)
		}
	}
	guard := "none (no clock reading reported)"
	if !act.notBefore.IsZero() {
		guard = "notBefore " + clock(act.notBefore)
	}
	t.Logf("ID %d: old clock %+v, new %+v; new lease %v after the coordinator freed the ID, guard %s; old holder's last possible timestamp %s (seen %s), new holder's first %s: %v headroom; %d + %d values, none repeated",
		id, oldSkew, newSkew, act.at.Sub(freeAt).Round(time.Millisecond), guard, clock(oldPossible), clock(oldSeen),
		clock(newMin), headroom, nOld, nNew)
}

// Clock offsets of TestHandoffRelease: the old holder's clock is ahead by
// nearly the whole skew allowance (HandoffSkew, 1s), the new holder's
// behind. A release ends the old holder's generation just before the
// coordinator frees the ID (it disables its factories, then releases):
// its timestamps reach the release time + releaseOldSkew. Only what the
// coordinator reports guards the hand-off: SQL the release time as
// PrevExpiry (notBefore = release + HandoffSkew); Redis and etcd the hold
// a released ID stays taken (ReleaseHold), Redis with its clock
// (notBefore = CoordinatorNow + HandoffSkew - min(margin, hold),
// CoordinatorNow being at least release + hold), etcd with the new
// holder's (notBefore = its clock + 2*HandoffSkew - min(margin, hold),
// its clock reading at least release + hold - HandoffSkew); with no hold,
// the same without it. Without the guard (a hold reported but not kept,
// or the margin subtracted in place of min(margin, hold)) the new holder
// would start about HandoffSkew - margin after the release on Redis,
// 150ms below the old holder's last timestamps, and at its own clock on
// etcd, 1.25s below them.
const (
	releaseOldSkew = 950 * time.Millisecond
	releaseNewSkew = -300 * time.Millisecond
)

// TestHandoffRelease: a holder whose clock runs ahead releases its ID
// (Close) while it is generating; a holder whose clock runs behind takes
// the ID over the moment the coordinator frees it. Every value the new
// holder draws has a timestamp above the old holder's clock when it
// stopped, and no value repeats.
//
// Redis and etcd run twice: with the default ReleaseHold (the ID stays
// taken for 1s after the release on Redis, 3s on etcd) and with none
// (ReleaseHold < 0: the ID is free at once, and the new holder waits
// HandoffSkew, on etcd 2*HandoffSkew, instead).
func HandoffRelease(t *testing.T) {
	t.Parallel()
	forEachParallel(t, nil, func(t *testing.T, c Coordinator) {
		hold := c.HoldStrategy
		if hold == nil {
			testHandoffRelease(t, c, nil)
			return
		}
		for _, v := range []struct {
			name string
			hold time.Duration
		}{{"hold", 0}, {"nohold", -1}} {
			t.Run(v.name, func(t *testing.T) {
				testHandoffRelease(t, c, func(t *testing.T, sp *Space) driver.Strategy { return hold(t, sp, v.hold) })
			})
		}
	})
}

// redisMode reports the mode of a Redis coordinator of the table (by its
// name) and whether c is one.
func redisMode(c Coordinator) (redislease.Mode, bool) {
	switch {
	case strings.HasPrefix(c.Name, "redis"), strings.HasPrefix(c.Name, "valkey"):
		if strings.HasSuffix(c.Name, "-hash") {
			return redislease.ModeHash, true
		}
		return redislease.ModeKey, true
	}
	return 0, false
}

// redisHoldStrategy is a strategy on sp (the space of a Redis
// coordinator) whose Release keeps the ID taken for hold (0: the default
// hold; negative: none).
func redisHoldStrategy(t *testing.T, sp *Space, mode redislease.Mode, hold time.Duration) driver.Strategy {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: sp.Target, ContextTimeoutEnabled: true, PoolSize: 4, DialTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	s, err := redislease.New(c, redislease.Options{Mode: mode, Name: sp.NS, ReleaseHold: hold})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testHandoffRelease runs TestHandoffRelease on c; strategy, if not nil,
// makes the holders' strategies (by default the table's).
func testHandoffRelease(t *testing.T, c Coordinator, strategy func(*testing.T, *Space) driver.Strategy) {
	t.Helper()
	sp := c.Setup(t, false)
	cl := c.open(t, sp, nil, 4)
	if strategy == nil {
		strategy = func(t *testing.T, _ *Space) driver.Strategy { return cl.mustStrategy(t, false) }
	}
	fillAllBut(t, sp, cl, 7, time.Minute)
	// The release must complete for the case to mean anything: 5s for
	// it, since a coordinator slowed by -race on a loaded machine can
	// take more than the rig's default 500ms.
	old := startRig(t, strategy(t, sp), rigOptions{skew: releaseOldSkew, handoffSkew: handoffSkew, releaseTimeout: 5 * time.Second})
	id := old.m.MachineID()
	old.gen.waitValues(t, time.Now(), 50, 3*time.Second)

	// Close while the generator runs: the factory is disabled (its last
	// values come just before), then the lease released.
	ctx := ctxFor(t, 20*time.Second)
	closeAt := time.Now()
	if err := old.m.Close(ctx); err != nil {
		t.Fatalf("old holder's Close: %v", err)
	}
	released := time.Now()
	oldDraws := old.gen.halt()
	stop, ok := old.rf.last(lifeDisable)
	if !ok {
		t.Fatal("the old holder's factory was never disabled")
	}
	// Start the new holder the moment the coordinator frees the ID.
	freeAt := awaitFree(t, ctx, sp, id)
	r := startRig(t, strategy(t, sp), newHolderLease(c, releaseNewSkew))
	if got := r.m.MachineID(); got != id {
		t.Fatalf("new holder got machine ID %d, want the released %d", got, id)
	}
	r.gen.waitValues(t, time.Now(), 50, 5*time.Second)
	newDraws := r.close()

	// The old holder's clock when its factory was disabled (taken after the
	// Disable call): at or above anything it drew.
	oldPossible := stop.at.Add(releaseOldSkew).Truncate(time.Millisecond)
	oldSeen, ok := maxTimestamp(oldDraws)
	if !ok {
		t.Fatal("the old holder drew nothing")
	}
	newMin, ok := minTimestamp(newDraws)
	if !ok {
		t.Fatal("the new holder drew nothing")
	}
	if oldSeen.After(oldPossible) {
		t.Errorf("old holder drew timestamp %s after its clock at the disable, %s", clock(oldSeen), clock(oldPossible))
	}
	if !newMin.After(oldPossible) {
		t.Errorf("new holder's first timestamp %s is not after the old holder's clock when it stopped, %s (%v below; %d of its %d values inside the old holder's time range; old clock %+v, new %+v)",
			clock(newMin), clock(oldPossible), oldPossible.Sub(newMin), countAtOrBefore(newDraws, oldPossible), len(newDraws),
			releaseOldSkew, releaseNewSkew)
	}
	seen := map[uint64]string{}
	nOld := checkDraws(t, "old holder", oldDraws, old.rf.events(), releaseOldSkew, seen)
	nNew := checkDraws(t, "new holder", newDraws, r.rf.events(), releaseNewSkew, seen)
	act, _ := r.rf.last(lifeActivate)
	t.Logf("ID %d: old clock %+v, new %+v; released %v after Close began, free %v later, new lease %v after that, notBefore %s; old holder's last timestamp %s (clock at the disable %s), new holder's first %s: %v headroom; %d + %d values, none repeated",
		id, releaseOldSkew, releaseNewSkew, released.Sub(closeAt).Round(time.Millisecond), freeAt.Sub(released).Round(time.Millisecond),
		act.at.Sub(freeAt).Round(time.Millisecond), clock(act.notBefore), clock(oldSeen), clock(oldPossible), clock(newMin),
		newMin.Sub(oldPossible), nOld, nNew)
}

// countAtOrBefore counts the values drawn whose timestamps are at or
// before t.
func countAtOrBefore(draws []draw, t time.Time) int {
	n := 0
	for _, d := range draws {
		if d.err == nil && !nonce.Split64(d.v, time.Time{}).Time.After(t) {
			n++
		}
	}
	return n
}

// awaitFree polls the coordinator until it shows machine ID id free, and
// returns when it saw that, so that a new holder can start as early as it
// possibly can.
func awaitFree(t *testing.T, ctx context.Context, sp *Space, id int) time.Time {
	t.Helper()
	for {
		if _, held, err := sp.Expiry(ctx, id); err != nil {
			t.Fatal(err)
		} else if !held {
			return time.Now()
		}
		time.Sleep(2 * time.Millisecond)
	}
}
