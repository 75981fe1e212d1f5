package k8slease_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// fillAllBut claims every machine ID of ns but last for an hour, 16 at a
// time, as holders that stay alive.
func fillAllBut(t testing.TB, cfg *rest.Config, ns string, last int) {
	t.Helper()
	fill(t, cfg, ns, func(id int) bool { return id != last })
}

// fill claims the machine IDs of ns that take selects for an hour, 16 at
// a time, as holders that stay alive.
func fill(t testing.TB, cfg *rest.Config, ns string, take func(id int) bool) {
	t.Helper()
	s := strategy(t, cfg, ns, k8slease.Options{Holder: "filler"})
	ids := make(chan int, k8slease.Capacity)
	for id := range k8slease.Capacity {
		if take(id) {
			ids <- id
		}
	}
	close(ids)
	var wg sync.WaitGroup
	errs := make(chan error, k8slease.Capacity)
	for range 16 {
		wg.Go(func() {
			for id := range ids {
				if _, err := s.Claim(context.Background(), id, time.Hour); err != nil {
					errs <- fmt.Errorf("claim %d: %w", id, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestKillHolder: a holder process (a lease manager on 2s leases) is
// killed with SIGKILL and never releases. A contender that starts looking
// after the kill gets the ID no earlier than the recorded duration after
// the kill (the holder's last write came before it), and soon after; it
// reports the holder's evidence as PrevExpiry, and every timestamp the
// holder printed lies below that evidence.
func TestKillHolder(t *testing.T) {
	cfg := restConfig(t)
	cs := clientset(t, cfg)
	ns := namespace(t, cs)
	fillAllBut(t, cfg, ns, k8slease.Capacity-1)
	h := startHolder(t, ns, 0, 2*time.Second)
	if h.id != k8slease.Capacity-1 {
		t.Fatalf("holder got machine ID %d, the only free one is %d", h.id, k8slease.Capacity-1)
	}
	time.Sleep(1500 * time.Millisecond) // a renewal or two
	h.signal(syscall.SIGKILL)
	killAt := time.Now()
	oldMax, _ := h.last(t)

	rec := getLease(t, cs, ns, k8slease.DefaultPrefix+"-511")
	recorded := time.Duration(*rec.Spec.LeaseDurationSeconds) * time.Second
	bound, err := time.Parse(time.RFC3339Nano, rec.Annotations[k8slease.AnnotationTimestampsBefore])
	if err != nil {
		t.Fatal(err)
	}
	c := strategy(t, cfg, ns, k8slease.Options{})
	var got driver.Lease
	tries := 0
	for {
		tries++
		got, err = c.Acquire(context.Background(), time.Minute)
		if err == nil {
			break
		}
		if !errors.Is(err, driver.ErrExhausted) && !errors.Is(err, driver.ErrConflict) && !errors.Is(err, driver.ErrRetry) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	after := time.Since(killAt)
	t.Logf("recorded duration %v; taken over %v after the kill (%d tries); holder's last timestamp %v before its evidence",
		recorded, after.Round(time.Millisecond), tries, bound.Sub(oldMax))
	if got.MachineID != h.id {
		t.Fatalf("contender got machine ID %d, want the killed holder's %d", got.MachineID, h.id)
	}
	if after < recorded {
		t.Errorf("taken over %v after the kill, before the recorded duration %v", after, recorded)
	}
	if after > recorded+3*time.Second {
		t.Errorf("taken over only %v after the kill (recorded duration %v)", after, recorded)
	}
	if !got.PrevExpiry.Equal(bound) {
		t.Errorf("PrevExpiry %v, want the holder's evidence %v", got.PrevExpiry, bound)
	}
	if !oldMax.Before(bound) {
		t.Errorf("the holder emitted %v, not below its evidence %v", oldMax, bound)
	}
}
