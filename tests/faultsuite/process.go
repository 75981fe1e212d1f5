package faultsuite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// takeover polls Acquire on s until it yields a lease, as a process
// waiting for a free ID would, and returns it with the time the
// successful call started and returned. Every refusal must be
// ErrExhausted (or a transient conflict/retry).
func takeover(t *testing.T, ctx context.Context, s driver.Strategy, every time.Duration) (l driver.Lease, callAt, gotAt time.Time, tries int) {
	t.Helper()
	for {
		callAt = time.Now()
		l, err := s.Acquire(ctx, leaseDur)
		gotAt = time.Now()
		tries++
		switch {
		case err == nil:
			return l, callAt, gotAt, tries
		case ctx.Err() != nil:
			t.Fatalf("no lease after %d attempts: %v", tries, err)
		case !errors.Is(err, driver.ErrExhausted) && !errors.Is(err, driver.ErrConflict) && !errors.Is(err, driver.ErrRetry):
			t.Fatalf("Acquire: %v", err)
		}
		time.Sleep(every)
	}
}

// TestKillHolder: a holder process is killed with SIGKILL (no release).
// Its machine ID is not handed out before the coordinator-side expiry
// (which lies a margin after the holder's own deadline), and is handed out
// right after it, or within the coordinator's freeLag after it (etcd: its
// revoke tick). The namespace is full but for the holder's ID, so a
// contender polling Acquire sees ErrExhausted until then.
func KillHolder(t *testing.T) {
	forEach(t, nil, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, false)
		cl := c.open(t, sp, nil, 8)
		fillAllBut(t, sp, cl, 7, time.Minute)
		h := startHolder(t, c, sp, holderArgs{})
		id := h.id()
		h.waitValues(time.Now(), 20, 3*time.Second)
		h.kill()
		killAt := time.Now()
		ctx := ctxFor(t, 10*time.Second)
		exp, held, err := sp.Expiry(ctx, id)
		if err != nil || !held {
			t.Fatalf("ID %d right after the kill: held %v, %v", id, held, err)
		}
		grant, ok := h.lastGrant()
		if !ok {
			t.Fatal("holder printed no lifecycle call")
		}
		// The holder's own deadline ends a margin before the coordinator's
		// expiry (plus the renewal's latency). The lower bound is the
		// safety property; the upper one only checks that the lease is
		// not grossly longer, and is loose: under -race a SQLite renewal
		// can take a few hundred milliseconds (etcd: expirySlack more).
		if d := exp.Sub(grant.validUntil); d < margin-2*time.Millisecond || d > margin+500*time.Millisecond+c.ExpirySlack {
			t.Errorf("coordinator expiry %s is %v after the holder's deadline %s; want about the margin %v",
				clock(exp), d, clock(grant.validUntil), margin)
		}
		l, callAt, gotAt, tries := takeover(t, ctx, cl.mustStrategy(t, false), 10*time.Millisecond)
		defer cl.mustStrategy(t, false).Release(ctx, l)
		if l.MachineID != id {
			t.Fatalf("contender got machine ID %d, want the killed holder's %d", l.MachineID, id)
		}
		// The ID was free when the coordinator handled the call, at some
		// point in [callAt, gotAt]: never before the expiry.
		if gotAt.Before(exp.Add(-2 * time.Millisecond)) {
			t.Errorf("ID %d handed out at %s, %v before its expiry %s", id, clock(gotAt), exp.Sub(gotAt), clock(exp))
		}
		// One slow poll (SQLite under -race: ~100ms a call); where the
		// coordinator frees the ID late, its freeLag and 100ms for the
		// deletion's commit and a poll.
		if d, late := callAt.Sub(exp), max(500*time.Millisecond, c.FreeLag+100*time.Millisecond); d > late {
			t.Errorf("ID %d handed out only by a call starting %v after its expiry (allowed %v; freeLag %v)", id, d, late, c.FreeLag)
		}
		n := h.check(0, map[uint64]string{})
		t.Logf("killed holder of ID %d; coordinator expiry %v after the kill (%v after the holder's deadline); contender refused %d times, got the ID %v after the expiry; holder drew %d values",
			id, exp.Sub(killAt).Round(time.Millisecond), exp.Sub(grant.validUntil).Round(time.Millisecond), tries-1,
			gotAt.Sub(exp).Round(time.Millisecond), n)
	})
}

// TestSuspendHolder: a holder process is stopped (SIGSTOP) past its safe
// window; meanwhile its lease expires at the coordinator and a contender
// takes the ID. After SIGCONT the holder must draw nothing: its factory's
// deadline has passed (a generator checks it on every Sortable64 call,
// the factory's timer disables it, the manager finds the window over
// before renewing). It reports the loss, cannot get another ID (the
// namespace is full) and generates again only once the contender releases
// the ID and the holder's manager has re-acquired it.
func SuspendHolder(t *testing.T) {
	t.Parallel()
	forEachParallel(t, nil, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, false)
		cl := c.open(t, sp, nil, 8)
		fillAllBut(t, sp, cl, 7, time.Minute)
		h := startHolder(t, c, sp, holderArgs{})
		id := h.id()
		h.waitValues(time.Now(), 20, 3*time.Second)
		h.signal(syscall.SIGSTOP)
		stopAt := time.Now()
		time.Sleep(20 * time.Millisecond) // let the pipe drain
		grant, _ := h.lastGrant()
		deadline := grant.validUntil
		ctx := ctxFor(t, 20*time.Second)
		s := cl.mustStrategy(t, false)
		l, _, gotAt, _ := takeover(t, ctx, s, 10*time.Millisecond)
		if l.MachineID != id {
			t.Fatalf("contender got machine ID %d, want the stopped holder's %d", l.MachineID, id)
		}
		contAt := time.Now() // before the signal: the holder may run at once
		h.signal(syscall.SIGCONT)
		time.Sleep(700 * time.Millisecond)
		lost := h.lost()
		if len(lost) == 0 {
			t.Fatalf("holder reported no loss %v after SIGCONT", time.Since(contAt))
		}
		if !strings.Contains(lost[0].err.Error(), lease.ErrExpired.Error()) && !strings.Contains(lost[0].err.Error(), lease.ErrTimeout.Error()) {
			t.Errorf("holder's loss: %v; want the window to have expired", lost[0].err)
		}
		if err := s.Release(ctx, l); err != nil {
			t.Fatalf("contender's release: %v", err)
		}
		relAt := time.Now()
		react := h.waitLife(lifeActivate, relAt, 4*time.Second)
		if react.id != id {
			t.Errorf("holder re-acquired ID %d, want %d (the only free one)", react.id, id)
		}
		h.waitValues(react.at, 20, 4*time.Second)
		h.stop(5 * time.Second)

		draws := h.snapshot()
		if n := strays(draws, contAt, react.at); n > 0 {
			t.Errorf("%d values drawn after SIGCONT before the new lease", n)
		}
		// The generator ran after SIGCONT and was refused (a draw started
		// before the stop may be the one refused: its start predates
		// SIGCONT, so count from the last value before the stop).
		if x := summarise(draws, lastValueBefore(draws, stopAt), react.at); x.refused == 0 {
			t.Errorf("no refused draw after SIGCONT: the generator did not run")
		}
		if n := strays(draws, deadline, react.at); n > 0 {
			t.Errorf("%d values drawn between the deadline %s and the new lease", n, clock(deadline))
		}
		n := h.check(0, map[uint64]string{})
		t.Logf("stopped %v after the deadline's renewal; contender took ID %d %v into the stop; after SIGCONT: %d refused draws, loss %q; re-acquired %v after the contender released (notBefore %s); %d values",
			stopAt.Sub(grant.at).Round(time.Millisecond), id, gotAt.Sub(stopAt).Round(time.Millisecond),
			summarise(draws, lastValueBefore(draws, stopAt), react.at).refused,
			lost[0].err, react.at.Sub(relAt).Round(time.Millisecond), clock(react.notBefore), n)
	})
}

// TestCrashLoop: a holder is killed (SIGKILL) right after it holds a
// lease and restarted, 50 times in a row.
//
// statefile (the primary case; lease.Options.StateFile, which needs a
// strategy implementing driver.Reclaimer): every restart reclaims the same
// ID and the pool holds exactly one ID throughout.
//
// none (no StateFile, 20 restarts): every restart takes a new ID and the
// killed ones stay held until they expire, so the count of held IDs is
// bounded by the restarts within one lease duration (plus the
// coordinator's freeLag) and falls to zero once they expire and are
// freed. (With production leases of 8h that bound is what a crash loop
// costs: one ID per restart for 8h. Use a StateFile.)
func CrashLoop(t *testing.T) {
	t.Parallel()
	forEachParallel(t, nil, func(t *testing.T, c Coordinator) {
		ctx := ctxFor(t, 2*time.Minute)
		t.Run("statefile", func(t *testing.T) {
			sp := c.Setup(t, false)
			state := filepath.Join(t.TempDir(), "lease.json")
			const restarts = 50
			var ids []int
			t0 := time.Now()
			for i := range restarts {
				h := launchHolder(t, c, sp, holderArgs{state: state})
				ids = append(ids, h.waitID(10*time.Second))
				h.kill()
				held, err := sp.Held(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if held != 1 || ids[i] != ids[0] {
					t.Fatalf("restart %d: machine ID %d (first %d), %d IDs held; want the same ID, 1 held", i, ids[i], ids[0], held)
				}
			}
			loop := time.Since(t0)
			t.Logf("%d restarts in %v (%v each) all reclaimed machine ID %d; 1 ID held throughout",
				restarts, loop.Round(time.Millisecond), (loop / restarts).Round(time.Millisecond), ids[0])
		})
		t.Run("none", func(t *testing.T) {
			sp := c.Setup(t, false)
			const restarts = 20
			var (
				ids     = map[int]bool{}
				starts  []time.Time
				maxHeld int
				t0      = time.Now()
			)
			for i := range restarts {
				h := startHolder(t, c, sp, holderArgs{})
				ids[h.id()] = true
				starts = append(starts, time.Now())
				h.kill()
				asked := time.Now()
				held, err := sp.Held(ctx)
				if err != nil {
					t.Fatal(err)
				}
				maxHeld = max(maxHeld, held)
				// Held: the holders started within one lease duration
				// (and a little: the coordinator expires on its own
				// clock), plus the coordinator's freeLag, before the
				// query was sent; the coordinator counted no earlier
				// than that, however late its reply came.
				bound := 0
				for _, s := range starts {
					if asked.Sub(s) < leaseDur+200*time.Millisecond+c.FreeLag {
						bound++
					}
				}
				if held > bound {
					t.Fatalf("restart %d: %d IDs held, but only %d holders started within the lease duration (and freeLag %v)", i, held, bound, c.FreeLag)
				}
			}
			loop := time.Since(t0)
			time.Sleep(leaseDur + 100*time.Millisecond + c.FreeLag)
			if held, err := sp.Held(ctx); err != nil || held != 0 {
				t.Errorf("%d IDs held (%v) a lease duration (and freeLag %v) after the last kill, want 0", held, err, c.FreeLag)
			}
			t.Logf("%d restarts in %v (%v each), %d distinct IDs, at most %d held at once, 0 after they expired",
				restarts, loop.Round(time.Millisecond), (loop / restarts).Round(time.Millisecond), len(ids), maxHeld)
		})
	})
}
