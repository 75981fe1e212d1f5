package faultsuite

import (
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// TestHandoffForcedFree: a holder whose clock runs ahead (as in
// TestHandoffRelease) is killed (SIGKILL) while it generates, and another
// process frees its ID at once, as `once lease free --force` does: it lists
// the held IDs (driver.Lister) and releases the token listed for the ID. A
// holder whose clock runs behind takes the ID over the moment the
// coordinator frees it. Every value it draws has a timestamp above the
// killed holder's clock at the kill, and no value repeats.
//
// A release by a process the lease was not granted to must not lower what
// guards the hand-off below what the holder's own release would leave: on
// SQL the release time becomes PrevExpiry, on Redis and etcd the ID stays
// taken for ReleaseHold, all on the coordinator's side, and the killed
// holder stopped before the release. (Kubernetes, whose evidence is
// written in the holders' clocks, has its own test: k8slease's
// TestFreeKeepsEvidence.)
func HandoffForcedFree(t *testing.T) {
	t.Parallel()
	forEachParallel(t, nil, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, false)
		cl := c.open(t, sp, nil, 4)
		fillAllBut(t, sp, cl, 7, time.Minute)
		old := startHolder(t, c, sp, holderArgs{skew: releaseOldSkew, handoffSkew: handoffSkew})
		id := old.id()
		old.waitValues(time.Now(), 50, 3*time.Second)
		old.kill()
		killed := time.Now()

		ctx := ctxFor(t, 20*time.Second)
		freer := cl.mustStrategy(t, false)
		lister, ok := freer.(driver.Lister)
		if !ok {
			t.Fatalf("%s's strategy lists no leases (lease free needs driver.Lister)", c.Name)
		}
		slots, err := lister.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		var token string
		for _, s := range slots {
			if s.MachineID == id {
				token = s.Token
			}
		}
		if token == "" {
			t.Fatalf("ID %d of the killed holder is not listed as held", id)
		}
		if err := freer.Release(ctx, driver.Lease{MachineID: id, Token: token}); err != nil {
			t.Fatalf("Release of the listed token: %v", err)
		}
		released := time.Now()
		freeAt := awaitFree(t, ctx, sp, id)
		r, newDraws := startNewHolder(t, c, cl, id, releaseNewSkew)

		// The killed holder's clock when it was gone: at or above anything
		// it drew.
		oldPossible := killed.Add(releaseOldSkew).Truncate(time.Millisecond)
		newMin, ok := minTimestamp(newDraws)
		if !ok {
			t.Fatal("the new holder drew nothing")
		}
		if !newMin.After(oldPossible) {
			t.Errorf("new holder's first timestamp %s is not after the killed holder's clock at the kill, %s (%v below; %d of its %d values inside the killed holder's time range; old clock %+v, new %+v)",
				clock(newMin), clock(oldPossible), oldPossible.Sub(newMin), countAtOrBefore(newDraws, oldPossible), len(newDraws),
				releaseOldSkew, releaseNewSkew)
		}
		seen := map[uint64]string{}
		nOld := old.check(releaseOldSkew, seen)
		nNew := checkDraws(t, "new holder", newDraws, r.rf.events(), releaseNewSkew, seen)
		act, _ := r.rf.last(lifeActivate)
		t.Logf("ID %d: old clock %+v, new %+v; freed %v after the kill, free %v later, new lease %v after that, notBefore %s; killed holder's clock at the kill %s, new holder's first timestamp %s: %v headroom; %d + %d values, none repeated",
			id, releaseOldSkew, releaseNewSkew, released.Sub(killed).Round(time.Millisecond), freeAt.Sub(released).Round(time.Millisecond),
			act.at.Sub(freeAt).Round(time.Millisecond), clock(act.notBefore), clock(oldPossible), clock(newMin),
			newMin.Sub(oldPossible), nOld, nNew)
	})
}
