package faultsuite

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
)

// Hand-off with skewed clocks.
//
// The old holder of a machine ID stops generating at its own deadline,
// sent + TTL - margin on its monotonic clock, which is at least a margin
// before the coordinator's expiry E; its timestamps come from its wall
// clock, skewOld ahead of true time: they are at most E - margin + skewOld.
// The new holder gets the ID only after E, and its first timestamp is
//
//	SQL (PrevExpiry = E reported): >= max(its clock, E + HandoffSkew)
//	Redis (no PrevExpiry):         >= its clock  >= E + skewNew
//
// So the SQL hand-off is safe while skewOld < HandoffSkew + margin,
// whatever the new holder's clock; the Redis hand-off while skewOld -
// skewNew < margin (10s in production, more than the default HandoffSkew;
// a tenth of the lease here). Redis keeps nothing of an expired lease, so
// the margin is all that guards it; redislease documents that the ID was
// free at CoordinatorNow, which the manager does not use.

// skews returns the clock offsets of the old and the new holder the test
// uses for c: inside what guards c's hand-off, with the new holder's clock
// behind (the harder case).
func skews(c coordinator) (old, new time.Duration) {
	if c.prevExpiry {
		// Old holder 1.1s ahead: past the margin (0.2s), inside
		// HandoffSkew (1s) + margin. New holder 0.3s behind.
		return 1100 * time.Millisecond, -300 * time.Millisecond
	}
	// 160ms apart in all, inside the margin (0.2s).
	return 120 * time.Millisecond, -40 * time.Millisecond
}

// TestHandoffSkew: a holder process with a skewed clock holds the only
// free ID and is cut off its coordinator (it generates until its
// deadline); an in-process holder with a clock skewed the other way starts
// the moment the coordinator frees the ID and takes it over. Every value the
// new holder draws has a timestamp above anything the old holder could
// have drawn (its clock at its last deadline), and no value repeats.
func TestHandoffSkew(t *testing.T) {
	t.Parallel()
	forEachParallel(t, nil, func(t *testing.T, c coordinator) {
		oldSkew, newSkew := skews(c)
		testHandoff(t, c, oldSkew, newSkew, true)
	})
}

// TestHandoffSkewBeyondMargin measures (FAULTSUITE_MEASURE=1; it asserts
// nothing) what happens to coordinators without PrevExpiry when the
// clocks are as far apart as TestHandoffSkew allows for SQL: the new
// holder's timestamps overlap the old holder's by skewOld - skewNew -
// margin, and values can repeat.
func TestHandoffSkewBeyondMargin(t *testing.T) {
	if os.Getenv("FAULTSUITE_MEASURE") != "1" {
		t.Skip("measurement; set FAULTSUITE_MEASURE=1")
	}
	forEach(t, func(c coordinator) bool { return !c.prevExpiry }, func(t *testing.T, c coordinator) {
		testHandoff(t, c, 1100*time.Millisecond, -300*time.Millisecond, false)
	})
}

func testHandoff(t *testing.T, c coordinator, oldSkew, newSkew time.Duration, strict bool) {
	t.Helper()
	sp := c.setup(t, false)
	cl := c.open(t, sp, nil, 4)
	fillAllBut(t, sp, cl, 7, time.Minute)
	old := startHolder(t, c, sp, holderArgs{skew: oldSkew})
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
	exp, held, err := sp.expiry(ctx, id)
	if err != nil || !held {
		t.Fatalf("ID %d after the cut: held %v, %v", id, held, err)
	}
	time.Sleep(time.Until(exp))
	for {
		if _, held, err := sp.expiry(ctx, id); err != nil {
			t.Fatal(err)
		} else if !held {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	freeAt := time.Now()
	r := startRig(t, cl.mustStrategy(t, false), rigOptions{skew: newSkew, acquireTimeout: 20 * time.Second})
	if got := r.m.MachineID(); got != id {
		t.Fatalf("new holder got machine ID %d, want the old holder's %d", got, id)
	}
	r.gen.waitValues(t, time.Now(), 50, 5*time.Second)
	newDraws := r.close()
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
	guard := "none (PrevExpiry not reported)"
	if !act.notBefore.IsZero() {
		guard = "notBefore " + clock(act.notBefore) + " = PrevExpiry + HandoffSkew"
	}
	t.Logf("ID %d: old clock %+v, new %+v; new lease %v after the coordinator freed the ID, guard %s; old holder's last possible timestamp %s (seen %s), new holder's first %s: %v headroom; %d + %d values, none repeated",
		id, oldSkew, newSkew, act.at.Sub(freeAt).Round(time.Millisecond), guard, clock(oldPossible), clock(oldSeen),
		clock(newMin), headroom, nOld, nNew)
}
