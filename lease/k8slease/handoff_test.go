package k8slease_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// Clock offsets of TestHandoffSkew: the old holder's clock runs 5s ahead
// (five times the default HandoffSkew), the new holder's 1s behind.
const (
	oldSkew = 5 * time.Second
	newSkew = -time.Second
)

// TestHandoffSkew: a machine ID changes hands between processes whose
// clocks disagree by 6s, far more than HandoffSkew (1s), after the old
// holder is killed (expiry), after it releases (SIGTERM), and after it is
// killed and an operator whose clock is right frees its ID at once, as
// once lease free --force does (a List, then a Release of the token). The new
// holder's first timestamp is above every timestamp the old one emitted,
// because the guard starts from the old holder's own evidence (written in
// its own clock), not from the new holder's clock: that would give
// now + 2 x HandoffSkew on a clock 6s behind, below the old timestamps.
func TestHandoffSkew(t *testing.T) {
	cfg := restConfig(t)
	for _, c := range []struct {
		name string
		stop syscall.Signal
		free bool
	}{{"expiry", syscall.SIGKILL, false}, {"release", syscall.SIGTERM, false}, {"free", syscall.SIGKILL, true}} {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t, clientset(t, cfg))
			fillAllBut(t, cfg, ns, k8slease.Capacity-1)
			h := startHolder(t, ns, oldSkew, 2*time.Second)
			time.Sleep(time.Second)
			h.signal(c.stop)
			stopped := time.Now()
			oldMax, rest := h.last(t)
			if c.stop == syscall.SIGTERM && (len(rest) == 0 || rest[len(rest)-1] != "closed <nil>") {
				t.Fatalf("holder did not close cleanly: %q", rest)
			}
			if c.free {
				freeID(t, strategy(t, cfg, ns, k8slease.Options{Holder: "operator"}), h.id)
			}

			s := strategy(t, cfg, ns, k8slease.Options{})
			k8slease.SetWallClock(s, func() time.Time { return time.Now().Add(newSkew) })
			f := newSkewedFactory(newSkew)
			m, err := lease.Start(leasehook.With(context.Background(), f), s, shortOptions(lease.Options{
				LeaseDuration:  2 * time.Second,
				RenewInterval:  time.Second,
				AcquireTimeout: 20 * time.Second, // > 1.8 x LeaseDuration: see k8slease.AcquireTimeout
				Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
			}))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(context.Background())
			took := time.Since(stopped)
			if m.MachineID() != h.id {
				t.Fatalf("new holder got machine ID %d, want %d", m.MachineID(), h.id)
			}
			var first time.Time
			for end := time.Now().Add(30 * time.Second); first.IsZero(); {
				v, err := f.f.Sortable64()
				switch {
				case err == nil:
					first = stamp(v)
				case time.Now().After(end):
					t.Fatalf("no nonce within 30s: %v", err)
				case !strings.Contains(err.Error(), "disabled"):
					t.Fatal(err)
				}
			}
			t.Logf("taken over %v after the stop; old holder's last timestamp %s, new holder's first %s (%v later)",
				took.Round(time.Millisecond), oldMax.Format("15:04:05.000"), first.Format("15:04:05.000"), first.Sub(oldMax))
			if !first.After(oldMax) {
				t.Errorf("new holder's first timestamp %v is not above the old holder's last %v", first, oldMax)
			}
		})
	}
}

// freeID releases machine ID id through s, a strategy that never held it,
// the way once lease free --force does: the token comes from a List.
func freeID(t *testing.T, s *k8slease.Strategy, id int) {
	t.Helper()
	slots, err := s.List(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(slots, func(sl driver.Slot) bool { return sl.MachineID == id })
	if i < 0 {
		t.Fatalf("machine ID %d is not listed as held: %+v", id, slots)
	}
	if err := s.Release(ctxT(t), driver.Lease{MachineID: id, Token: slots[i].Token}); err != nil {
		t.Fatal(err)
	}
}
