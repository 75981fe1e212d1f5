// Package guardsuite holds guardlease's tests that run once per
// coordinator: the root module's guardlease tests run them on SQL and
// Redis, the etcdlease module's on etcd (a module of its own, so the root
// needs no etcd client).
package guardsuite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/nonce"
)

// Coordinator is one coordinator the guard is tested on. Setup prepares
// a fresh namespace (removed when the test ends) and returns a
// constructor of independent strategies on it, as separate processes
// would hold, and the description the guard's errors name it by.
type Coordinator struct {
	Name  string
	Setup func(t *testing.T) (newCoord func() guardlease.Coordinator, where string)
}

// Short guard leases: with testonly.ShortLeases the manager's margin is a
// tenth of the lease (400ms), renewals ~600ms apart. etcd grants at least
// 2s, so the lease is above that.
const (
	LeaseDuration = 4 * time.Second
	RenewInterval = time.Second
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
	if p.f, err = nonce.New(nonce.Config{}); err != nil {
		t.Fatal(err)
	}
	o := lease.Options{
		Factories:      []*nonce.Factory{p.f},
		LeaseDuration:  LeaseDuration,
		RenewInterval:  RenewInterval,
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

// SameOrdinal runs two StatefulSet-style processes whose environment
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
func SameOrdinal(t *testing.T, coordinators []Coordinator) {
	testonly.Need(t)
	if testing.Short() {
		t.Skip("-short: the crash and takeover cases wait out guard leases of seconds")
	}
	for _, c := range coordinators {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			newCoord, where := c.Setup(t)
			env := Ordinal(t)

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
					if !errors.Is(p.err, driver.ErrConflict) || !strings.Contains(msg, "machine ID 7") || !strings.Contains(msg, where) {
						t.Errorf("losing Start: %v; want driver.ErrConflict naming machine ID 7 and %q", p.err, where)
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
			next := start(t, env, newCoord(), where, LeaseDuration+hold+10*time.Second)
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
			third := start(t, env, newCoord(), where, LeaseDuration+10*time.Second)
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
			case <-time.After(2*LeaseDuration + 10*time.Second):
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

// Ordinal sets a fresh environment variable to a StatefulSet pod name
// with ordinal 7 and returns its name. (t.Setenv cannot be used in
// parallel tests; each test has its own variable.)
func Ordinal(t *testing.T) string {
	var b [4]byte
	rand.Read(b[:])
	name := "ONCE_GUARD_TEST_" + hex.EncodeToString(b[:])
	os.Setenv(name, "web-7")
	t.Cleanup(func() { os.Unsetenv(name) })
	return name
}

// spy is a coordinator that records the last lease it granted or renewed
// and when that request was sent, and that can crash: Release then does
// nothing, as when the holder was killed.
type spy struct {
	guardlease.Coordinator
	mu      sync.Mutex
	last    driver.Lease
	sent    time.Time
	crashed bool
}

func (s *spy) record(l driver.Lease, sent time.Time, err error) (driver.Lease, error) {
	if err == nil {
		s.mu.Lock()
		s.last, s.sent = l, sent
		s.mu.Unlock()
	}
	return l, err
}

func (s *spy) Claim(ctx context.Context, id int, d time.Duration) (driver.Lease, error) {
	sent := time.Now()
	l, err := s.Coordinator.Claim(ctx, id, d)
	return s.record(l, sent, err)
}

func (s *spy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	sent := time.Now()
	nl, err := s.Coordinator.Renew(ctx, l, d)
	return s.record(nl, sent, err)
}

func (s *spy) Release(ctx context.Context, l driver.Lease) error {
	s.mu.Lock()
	crashed := s.crashed
	s.mu.Unlock()
	if crashed {
		return nil
	}
	return s.Coordinator.Release(ctx, l)
}

// lease returns the last lease granted or renewed and when it was asked for.
func (s *spy) lease() (driver.Lease, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.sent
}

func (s *spy) crash() {
	s.mu.Lock()
	s.crashed = true
	s.mu.Unlock()
}
