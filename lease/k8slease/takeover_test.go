package k8slease_test

import (
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// TestTakeoverYieldsToLateWrite: a takeover updates the record on the
// resourceVersion it judged, so a write that lands between its judgement
// and its update makes it lose (ErrConflict) instead of overwriting that
// write: the holder's renewal of a record judged expired, and a
// contender's claim of a record judged released.
func TestTakeoverYieldsToLateWrite(t *testing.T) {
	cfg := restConfig(t)
	cs := clientset(t, cfg)

	t.Run("renewal", func(t *testing.T) {
		ns := namespace(t, cs)
		ctx := ctxT(t)
		a := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-a"})
		la, err := a.Claim(ctx, 0, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		b := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-b"})
		if _, err := b.Claim(ctx, 0, time.Minute); !errors.Is(err, driver.ErrConflict) {
			t.Fatalf("Claim of a held ID: %v, want ErrConflict", err)
		}
		time.Sleep(1100 * time.Millisecond) // b has now seen the 1s record unchanged for 1s
		var renewErr error
		hooked := 0
		k8slease.SetBeforeTakeOver(b, func(int) {
			hooked++
			_, renewErr = a.Renew(ctx, la, time.Minute)
		})
		if _, err := b.Claim(ctx, 0, time.Minute); !errors.Is(err, driver.ErrConflict) {
			t.Errorf("takeover with a renewal after its judgement: %v, want ErrConflict (the renewal must not be overwritten)", err)
		}
		if hooked != 1 || renewErr != nil {
			t.Fatalf("hook ran %d times, renewal: %v; want once, renewed", hooked, renewErr)
		}
		if h := holderIdentity(t, cs, ns, "ids-0"); h != la.Token {
			t.Errorf("holder after the race: %q, want the renewing holder %q", h, la.Token)
		}
	})

	t.Run("claim", func(t *testing.T) {
		ns := namespace(t, cs)
		ctx := ctxT(t)
		a := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-a"})
		la, err := a.Claim(ctx, 0, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Release(ctx, la); err != nil {
			t.Fatal(err)
		}
		b := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-b"})
		c := strategy(t, cfg, ns, k8slease.Options{Prefix: "ids", Holder: "pod-c"})
		var lc driver.Lease
		var claimErr error
		hooked := 0
		k8slease.SetBeforeTakeOver(b, func(int) {
			hooked++
			lc, claimErr = c.Claim(ctx, 0, time.Minute)
		})
		if _, err := b.Claim(ctx, 0, time.Minute); !errors.Is(err, driver.ErrConflict) {
			t.Errorf("takeover with a contender's claim after its judgement: %v, want ErrConflict (the claim must not be overwritten)", err)
		}
		if hooked != 1 || claimErr != nil {
			t.Fatalf("hook ran %d times, contender's claim: %v; want once, claimed", hooked, claimErr)
		}
		if h := holderIdentity(t, cs, ns, "ids-0"); h != lc.Token {
			t.Errorf("holder after the race: %q, want the contender %q", h, lc.Token)
		}
	})
}

// holderIdentity is the Lease's holderIdentity, "" when unset.
func holderIdentity(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	if h := getLease(t, cs, ns, name).Spec.HolderIdentity; h != nil {
		return *h
	}
	return ""
}
