package k8slease_test

import (
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
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
	var l driver.Lease
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
	r, err := first.Reclaim(ctx, driver.Lease{MachineID: 3, Token: l.Token}, time.Second)
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

// TestFreeKeepsEvidence: an operator's release of a gone holder's lease
// (once lease free --force: a token from a List, released by a strategy
// that never held it) frees the ID at once but keeps the evidence that
// holder wrote in its own clock, here an hour ahead of the operator's; the
// holder's own release lowers it to its clock at the release.
func TestFreeKeepsEvidence(t *testing.T) {
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	ctx := ctxT(t)
	ahead := strategy(t, cfg, ns, k8slease.Options{Holder: "ahead"})
	k8slease.SetWallClock(ahead, func() time.Time { return time.Now().Add(time.Hour) })
	l, err := ahead.Claim(ctx, 3, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	bound := time.Now().Add(time.Hour + time.Minute) // the renewal's evidence is above it
	if _, err := ahead.Renew(ctx, l, time.Minute); err != nil {
		t.Fatal(err)
	}
	freeID(t, strategy(t, cfg, ns, k8slease.Options{Holder: "operator"}), 3)
	next := strategy(t, cfg, ns, k8slease.Options{Holder: "next"})
	nl, err := next.Claim(ctx, 3, time.Minute)
	if err != nil {
		t.Fatalf("claim after the operator's release: %v", err)
	}
	if nl.PrevExpiry.Before(bound) {
		t.Errorf("after an operator's release the next holder starts after %v, %v below the gone holder's evidence (after %v)",
			nl.PrevExpiry, bound.Sub(nl.PrevExpiry).Round(time.Millisecond), bound)
	}

	// The next holder's own release lowers the evidence to its clock, but
	// not below the bound it found.
	if err := next.Release(ctx, nl); err != nil {
		t.Fatal(err)
	}
	after, err := strategy(t, cfg, ns, k8slease.Options{}).Claim(ctx, 3, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !after.PrevExpiry.Equal(nl.PrevExpiry) {
		t.Errorf("after the holder's own release PrevExpiry %v; want the bound it found, %v", after.PrevExpiry, nl.PrevExpiry)
	}
}
