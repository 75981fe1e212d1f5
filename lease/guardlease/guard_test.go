package guardlease_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/nonce"
)

// Short guard leases: with testonly.ShortLeases the manager's margin is a
// tenth of the lease (400ms), renewals ~600ms apart. etcd grants at least
// 2s, so the lease is above that.
const (
	leaseDuration = 4 * time.Second
	renewInterval = time.Second
)

// process is one StatefulSet pod: a lease manager on a guard of the
// ordinal in the environment, and the nonce factory it protects.
type process struct {
	m   *lease.Manager
	f   *nonce.Factory
	spy *spy
	err error // of Start
}

// start starts a process on a new coordinator strategy; acquireTimeout
// bounds Start.
func start(t *testing.T, env string, coord guardlease.Coordinator, where string, acquireTimeout time.Duration) *process {
	t.Helper()
	p := &process{spy: &spy{Coordinator: coord}}
	s, err := guardlease.New(envlease.New(env, 0), p.spy, where)
	if err != nil {
		t.Fatalf("guardlease.New: %v", err)
	}
	if p.f, err = nonce.New(nonce.Config{AwaitLease: true}); err != nil {
		t.Fatal(err)
	}
	o := lease.Options{
		Factories:      []lease.Factory{p.f},
		LeaseDuration:  leaseDuration,
		RenewInterval:  renewInterval,
		AcquireTimeout: acquireTimeout,
		HandoffSkew:    100 * time.Millisecond,
		Logger:         slog.New(slog.DiscardHandler),
	}
	testonly.ShortLeases(&o)
	if p.m, p.err = lease.Start(context.Background(), s, o); p.err == nil {
		t.Cleanup(func() { p.m.Close(context.Background()) })
	}
	return p
}

// generating reports whether p's factory emits nonces, and with which
// machine ID.
func (p *process) generating() (int, bool) {
	v, err := p.f.Sortable64()
	if err != nil {
		return -1, false
	}
	return nonce.Split64(v, p.f.Epoch()).MachineID, true
}

// TestSameOrdinal runs two StatefulSet-style processes whose environment
// names the same ordinal (7) on every coordinator, each guarding it with a
// short lease:
//   - started at the same time, exactly one holds machine ID 7 and
//     generates; the other's Start fails with ErrConflict naming the ID
//     and the coordinator;
//   - when the holder shuts down, a successor gets the ID, not before the
//     coordinator's release hold has passed;
//   - when a holder crashes (no release), its successor gets the ID only
//     once the crashed one's guard lease has run out;
//   - a holder whose guard is taken from it (released behind its back
//     and claimed by another process) is disabled: its factory stops and
//     its manager ends with ErrLost.
func TestSameOrdinal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the crash and takeover cases wait out guard leases of seconds")
	}
	for _, c := range coordinators {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			newCoord, where := c.setup(t)
			env := ordinal(t)

			// Two at once: the loser keeps retrying for 1.5s while the
			// winner's guard lasts 4s.
			var (
				wg    sync.WaitGroup
				procs [2]*process
				gate  = make(chan struct{})
			)
			for i := range procs {
				wg.Go(func() {
					coord := newCoord()
					<-gate
					procs[i] = start(t, env, coord, where, 1500*time.Millisecond)
				})
			}
			close(gate)
			wg.Wait()
			var holder *process
			generating := 0
			for _, p := range procs {
				if p.err != nil {
					msg := p.err.Error()
					if !errors.Is(p.err, lease.ErrConflict) || !strings.Contains(msg, "machine ID 7") || !strings.Contains(msg, where) {
						t.Errorf("losing Start: %v; want lease.ErrConflict naming machine ID 7 and %q", p.err, where)
					}
					continue
				}
				holder = p
				if id, ok := p.generating(); ok {
					generating++
					if id != 7 {
						t.Errorf("holder generates with machine ID %d, want 7", id)
					}
				}
			}
			if holder == nil || generating != 1 || procs[0].err == nil && procs[1].err == nil {
				t.Fatalf("%d processes generate with ordinal 7 (Start errors: %v, %v), want exactly 1", generating, procs[0].err, procs[1].err)
			}

			// Clean shutdown: the successor waits for the release hold.
			hold := max(func() time.Duration { l, _ := holder.spy.lease(); return l.ReleaseHold }(), 0)
			closing := time.Now()
			if err := holder.m.Close(context.Background()); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, ok := holder.generating(); ok {
				t.Fatal("closed holder still generates")
			}
			next := start(t, env, newCoord(), where, leaseDuration+hold+10*time.Second)
			if next.err != nil {
				t.Fatalf("successor after a clean shutdown: %v", next.err)
			}
			if waited := time.Since(closing); waited < hold {
				t.Errorf("successor got machine ID 7 %v after its predecessor's release, before the %v release hold passed", waited, hold)
			}
			if id, ok := next.generating(); !ok || id != 7 {
				t.Fatalf("successor generates: %v, machine ID %d; want machine ID 7", ok, id)
			}

			// Crash: the guard stays held until it runs out.
			next.spy.crash()
			last, sent := next.spy.lease()
			next.m.Close(context.Background())
			third := start(t, env, newCoord(), where, leaseDuration+10*time.Second)
			if third.err != nil {
				t.Fatalf("successor after a crash: %v", third.err)
			}
			if early := time.Until(sent.Add(last.TTL)); early > 0 {
				t.Errorf("successor got machine ID 7 %v before its crashed predecessor's guard lease ran out", early)
			}
			if _, ok := third.generating(); !ok {
				t.Fatal("successor after a crash does not generate")
			}

			// Stolen guard: release it behind the holder's back until
			// another process claims it.
			thief := newCoord()
			stolen := false
			for range 20 {
				l, _ := third.spy.lease()
				if err := third.spy.Coordinator.Release(t.Context(), l); err != nil {
					t.Logf("release behind the holder's back: %v", err)
				}
				until := time.Now().Add(max(l.ReleaseHold, 0) + 500*time.Millisecond)
				for time.Now().Before(until) {
					tl, err := thief.Claim(t.Context(), 7, time.Minute)
					if err == nil {
						stolen = true
						t.Cleanup(func() { thief.Release(context.Background(), tl) })
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if stolen {
					break
				}
			}
			if !stolen {
				t.Fatal("no other process could claim machine ID 7 after releasing the holder's guard 20 times")
			}
			select {
			case <-third.m.Done():
			case <-time.After(2*leaseDuration + 10*time.Second):
				t.Fatal("holder whose guard was taken still running")
			}
			if err := third.m.Err(); !errors.Is(err, lease.ErrLost) || !strings.Contains(err.Error(), "machine ID 7") || !strings.Contains(err.Error(), where) {
				t.Errorf("holder whose guard was taken ended with %v, want lease.ErrLost naming machine ID 7 and %q", err, where)
			}
			if _, ok := third.generating(); ok {
				t.Error("holder whose guard was taken still generates")
			}
		})
	}
}
