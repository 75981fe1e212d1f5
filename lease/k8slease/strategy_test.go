package k8slease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// TestLayout: one Lease per machine ID, "<prefix>-<id>", with the pool
// label, holderIdentity = holder/token (the lease's Token), the recorded
// duration in whole seconds, acquireTime and the hand-off evidence; a
// takeover bumps leaseTransitions and acquireTime; a release clears the
// holder and keeps the object.
func TestLayout(t *testing.T) {
	cfg := restConfig(t)
	cs := clientset(t, cfg)
	ns := namespace(t, cs)
	a := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-a", LowestFirst: true})
	ctx := ctxT(t)
	sent := time.Now()
	l, err := a.Acquire(ctx, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if l.MachineID != 0 || l.TTL != 2*time.Second || !strings.HasPrefix(l.Token, "pod-a/") || len(l.Token) != len("pod-a/")+22 {
		t.Fatalf("first lease: %+v; want ID 0, TTL 2s (whole seconds, rounded up), token pod-a/<22 chars>", l)
	}
	if !l.PrevExpiry.Equal(time.Unix(0, 0)) {
		t.Errorf("a created Lease reports PrevExpiry %v, want 1970 (never held)", l.PrevExpiry)
	}
	rec := getLease(t, cs, ns, "ids-0")
	if rec.Labels[k8slease.LabelPool] != "ids" || rec.Labels["app.kubernetes.io/managed-by"] != "once" {
		t.Errorf("labels %v", rec.Labels)
	}
	if len(rec.OwnerReferences) != 0 {
		t.Errorf("ownerReferences %v: garbage collection could free a live holder's ID", rec.OwnerReferences)
	}
	if *rec.Spec.HolderIdentity != l.Token || *rec.Spec.LeaseDurationSeconds != 2 || *rec.Spec.LeaseTransitions != 0 || rec.Spec.AcquireTime == nil {
		t.Errorf("spec %+v", rec.Spec)
	}
	bound, err := time.Parse(time.RFC3339Nano, rec.Annotations[k8slease.AnnotationTimestampsBefore])
	if err != nil || bound.Before(sent.Add(2*time.Second)) || bound.After(time.Now().Add(2*time.Second)) {
		t.Errorf("evidence %q (%v): want the send time + 2s", rec.Annotations[k8slease.AnnotationTimestampsBefore], err)
	}

	// b takes it over once it has seen the record unchanged for 2s.
	b := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-b", LowestFirst: true})
	if _, err := b.Claim(ctx, 0, time.Minute); !errors.Is(err, driver.ErrConflict) {
		t.Fatalf("Claim of a held ID: %v", err)
	}
	time.Sleep(2100 * time.Millisecond)
	lb, err := b.Claim(ctx, 0, time.Minute)
	if err != nil {
		t.Fatalf("Claim after the recorded duration: %v", err)
	}
	if !lb.PrevExpiry.Equal(bound) {
		t.Errorf("takeover PrevExpiry %v, want the old holder's evidence %v", lb.PrevExpiry, bound)
	}
	rec2 := getLease(t, cs, ns, "ids-0")
	if *rec2.Spec.LeaseTransitions != 1 || !rec2.Spec.AcquireTime.After(rec.Spec.AcquireTime.Time) || *rec2.Spec.HolderIdentity != lb.Token {
		t.Errorf("after the takeover: %+v", rec2.Spec)
	}
	if _, err := a.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrLost) || !strings.Contains(err.Error(), `held by "pod-b"`) {
		t.Errorf("old holder's Renew: %v, want ErrLost naming pod-b", err)
	}
	released := time.Now()
	if err := b.Release(ctx, lb); err != nil {
		t.Fatal(err)
	}
	rec3 := getLease(t, cs, ns, "ids-0")
	if rec3.Spec.HolderIdentity != nil {
		t.Errorf("released Lease still held by %q", *rec3.Spec.HolderIdentity)
	}
	b3, _ := time.Parse(time.RFC3339Nano, rec3.Annotations[k8slease.AnnotationTimestampsBefore])
	if b3.Before(released) || b3.After(time.Now()) {
		t.Errorf("evidence after release %v, want the release time (%v)", b3, released)
	}
	// Released: free at once, for a strategy that never saw it before.
	c := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", LowestFirst: true})
	lc, err := c.Acquire(ctx, time.Minute)
	if err != nil || lc.MachineID != 0 || !lc.PrevExpiry.Equal(b3) {
		t.Errorf("Acquire after release: %+v, %v; want ID 0 with PrevExpiry %v", lc, err, b3)
	}
}

// TestRecordedDuration: expiry is judged by the duration the holder
// recorded, not the one the contender asks for: a 4s holding is not taken
// over by a contender asking for 1s before 4s of watching, and a 2s one is
// taken over by a contender asking for an hour after 2s.
func TestRecordedDuration(t *testing.T) {
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	ctx := ctxT(t)
	for _, c := range []struct{ holder, contender time.Duration }{{4 * time.Second, time.Second}, {2 * time.Second, time.Hour}} {
		h := strategy(t, cfg, ns, k8slease.Options{LowestFirst: true})
		l, err := h.Claim(ctx, 9, c.holder)
		if err != nil {
			t.Fatal(err)
		}
		seen := time.Now() // the contender's first look comes after the write
		co := strategy(t, cfg, ns, k8slease.Options{})
		var got driver.Lease
		for {
			got, err = co.Claim(ctx, 9, c.contender)
			if err == nil {
				break
			}
			if !errors.Is(err, driver.ErrConflict) {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(seen)
		t.Logf("holder %v, contender asking %v: taken over %v after the holder's write", c.holder, c.contender, took)
		if took < c.holder || took > c.holder+2*time.Second {
			t.Errorf("holder recorded %v, contender asked %v: taken over after %v; want the recorded duration", c.holder, c.contender, took)
		}
		if err := co.Release(ctx, got); err != nil {
			t.Fatal(err)
		}
		if err := h.Release(ctx, l); err != nil { // stale: harmless
			t.Fatal(err)
		}
	}
}

// TestExhaustedUntilWatched: with every ID held and one holder dead, a
// process that has just looked gets ErrExhausted saying how long the dead
// holder's record must stay unchanged; Acquires repeated as the manager
// does take the ID over once this strategy has watched it that long, not
// before.
func TestExhaustedUntilWatched(t *testing.T) {
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	ctx := ctxT(t)
	fillAllBut(t, cfg, ns, 100)
	dead := strategy(t, cfg, ns, k8slease.Options{})
	l, err := dead.Acquire(ctx, 3*time.Second)
	if err != nil || l.MachineID != 100 {
		t.Fatalf("last ID: %+v, %v", l, err)
	}
	s := strategy(t, cfg, ns, k8slease.Options{})
	t0 := time.Now()
	_, err = s.Acquire(ctx, time.Minute)
	if !errors.Is(err, driver.ErrExhausted) || !strings.Contains(err.Error(), "expires in") || !strings.Contains(err.Error(), "AcquireTimeout") {
		t.Fatalf("Acquire right after the last claim: %v, want ErrExhausted naming the wait and the setting", err)
	}
	t.Log(err)
	var got driver.Lease
	for {
		if got, err = s.Acquire(ctx, time.Minute); err == nil {
			break
		}
		if !errors.Is(err, driver.ErrExhausted) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(t0)
	if got.MachineID != l.MachineID || took < 3*time.Second || took > 5*time.Second {
		t.Errorf("took over machine ID %d after %v; want %d about the recorded 3s after the first look", got.MachineID, took, l.MachineID)
	}
}

// TestList: List shows the held IDs in order with holder, token and the
// time left by this strategy's observation; a released ID is not listed,
// and Release with a listed token frees exactly that holding.
func TestList(t *testing.T) {
	cfg := restConfig(t)
	cs := clientset(t, cfg)
	ns := namespace(t, cs)
	ctx := ctxT(t)
	h := strategy(t, cfg, ns, k8slease.Options{Holder: "web-1/7", LowestFirst: true})
	var held []driver.Lease
	for range 3 {
		l, err := h.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
	}
	if err := h.Release(ctx, held[1]); err != nil {
		t.Fatal(err)
	}
	// A Lease of another pool and another name in the namespace are
	// ignored.
	other := strategy(t, cfg, ns, k8slease.Options{Prefix: "other"})
	if _, err := other.Acquire(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	lister := strategy(t, cfg, ns, k8slease.Options{})
	slots, err := lister.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 2 || slots[0].MachineID != 0 || slots[1].MachineID != 2 {
		t.Fatalf("List: %+v; want IDs 0 and 2", slots)
	}
	for i, s := range slots {
		want := held[2*i]
		if s.Holder != "web-1/7" || s.Token != want.Token || s.TTL <= 55*time.Second || s.TTL > time.Minute {
			t.Errorf("slot %+v; want holder web-1/7, token %q, TTL about 1m", s, want.Token)
		}
	}
	time.Sleep(time.Second)
	slots, _ = lister.List(ctx)
	if len(slots) != 2 || slots[0].TTL > 59*time.Second {
		t.Errorf("a second List: %+v; the TTL should count down from the first look", slots)
	}
	if err := lister.Release(ctx, driver.Lease{MachineID: slots[0].MachineID, Token: slots[0].Token}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Renew(ctx, held[0], time.Minute); !errors.Is(err, driver.ErrLost) {
		t.Errorf("Renew after a forced release: %v", err)
	}
	if _, err := h.Renew(ctx, held[2], time.Minute); err != nil {
		t.Errorf("Renew of the holding not released: %v", err)
	}
	all, _ := cs.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
	if len(all.Items) != 4 {
		t.Errorf("%d Lease objects; want 4 (a release deletes none)", len(all.Items))
	}
}
