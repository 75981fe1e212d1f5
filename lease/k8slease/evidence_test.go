package k8slease_test

import (
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
)

// TestEvidenceChain: the hand-off evidence covers every holder an ID had,
// not only the last. A holder whose clock runs 10s ahead holds machine ID 3
// and dies; a holder whose clock is right takes it over, so its factories
// wait for the first one's evidence (10s ahead) and emit nothing meanwhile.
// Whatever it then does — renew, reclaim after a restart, release — the
// evidence a later holder reads must stay at or above the first holder's,
// or that later holder would start below timestamps already emitted.
func TestEvidenceChain(t *testing.T) {
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	ctx := ctxT(t)
	ahead := strategy(t, cfg, ns, k8slease.Options{Holder: "ahead"})
	k8slease.SetWallClock(ahead, func() time.Time { return time.Now().Add(10 * time.Second) })
	if _, err := ahead.Claim(ctx, 3, time.Second); err != nil {
		t.Fatal(err)
	}
	first := strategy(t, cfg, ns, k8slease.Options{})
	var l lease.Lease
	var err error
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if l, err = first.Claim(ctx, 3, time.Minute); err == nil {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal(err)
		}
	}
	floor := l.PrevExpiry // the fast holder's evidence
	if time.Until(floor) < 8*time.Second {
		t.Fatalf("takeover PrevExpiry %v; want the fast holder's evidence, about 11s ahead", floor)
	}
	check := func(step string, got time.Time) {
		t.Helper()
		if got.Before(floor) {
			t.Errorf("after %s a later holder would start after %v, %v below the first holder's evidence %v", step, got, floor.Sub(got), floor)
		}
	}
	if l, err = first.Renew(ctx, l, time.Second); err != nil {
		t.Fatal(err)
	}
	r, err := first.Reclaim(ctx, lease.Lease{MachineID: 3, Token: l.Token}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	check("a renewal and a reclaim", r.PrevExpiry)
	if err := first.Release(ctx, r); err != nil {
		t.Fatal(err)
	}
	next, err := strategy(t, cfg, ns, k8slease.Options{}).Claim(ctx, 3, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	check("a release", next.PrevExpiry)
}
