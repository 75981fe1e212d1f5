package faultsuite

import (
	"path/filepath"
	"testing"
	"time"
)

// TestEtcdKillHolder is TestKillHolder on etcd: a holder process is killed
// with SIGKILL (no release). Its machine ID is not handed out before the
// etcd lease's TTL ended (which lies a margin after the holder's own
// deadline), and is handed out within etcd's revoke tick after it.
func TestEtcdKillHolder(t *testing.T) {
	c := etcdCoordinator("etcd")
	sp := c.setup(t, false)
	cl := c.open(t, sp, nil, 8)
	fillAllBut(t, sp, cl, 7, time.Minute)
	h := startHolder(t, c, sp, holderArgs{})
	id := h.id()
	h.waitValues(time.Now(), 20, 3*time.Second)
	h.kill()
	killAt := time.Now()
	ctx := ctxFor(t, 10*time.Second)
	exp, held, err := sp.expiry(ctx, id)
	if err != nil || !held {
		t.Fatalf("ID %d right after the kill: held %v, %v", id, held, err)
	}
	grant, ok := h.lastGrant()
	if !ok {
		t.Fatal("holder printed no lifecycle call")
	}
	// The lower bound is the safety property (etcd keeps the ID at least
	// the margin past the holder's deadline); the upper one only checks
	// the lease is not grossly longer, and grows with the latency of the
	// holder's last renewal (hundreds of ms under -race on loaded CPUs).
	if d := exp.Sub(grant.validUntil); d < margin-2*time.Millisecond || d > margin+time.Second {
		t.Errorf("etcd lease ends %s, %v after the holder's deadline %s; want about the margin %v",
			clock(exp), d, clock(grant.validUntil), margin)
	}
	l, callAt, gotAt, tries := takeover(t, ctx, cl.mustStrategy(t, false), 10*time.Millisecond)
	defer cl.mustStrategy(t, false).Release(ctx, l)
	if l.MachineID != id {
		t.Fatalf("contender got machine ID %d, want the killed holder's %d", l.MachineID, id)
	}
	if gotAt.Before(exp.Add(-2 * time.Millisecond)) {
		t.Errorf("ID %d handed out at %s, %v before its etcd lease ended %s", id, clock(gotAt), exp.Sub(gotAt), clock(exp))
	}
	if d := callAt.Sub(exp); d > etcdRevokeTick+100*time.Millisecond {
		t.Errorf("ID %d handed out only by a call starting %v after its etcd lease ended (revoke tick %v)", id, d, etcdRevokeTick)
	}
	n := h.check(0, map[uint64]string{})
	t.Logf("killed holder of ID %d; etcd lease ended %v after the kill (%v after the holder's deadline); contender refused %d times, got the ID %v after the end; holder drew %d values",
		id, exp.Sub(killAt).Round(time.Millisecond), exp.Sub(grant.validUntil).Round(time.Millisecond), tries-1,
		gotAt.Sub(exp).Round(time.Millisecond), n)
}

// TestEtcdCrashLoop is TestCrashLoop on etcd: with a StateFile, 50
// restarts after SIGKILL all reclaim the same ID and one ID is held
// throughout; without, 20 restarts hold at most one ID per holder started
// within a lease duration (plus etcd's revoke tick), and none once they
// have expired.
func TestEtcdCrashLoop(t *testing.T) {
	c := etcdCoordinator("etcd")
	sp := c.setup(t, false)
	ctx := ctxFor(t, 2*time.Minute)
	t.Run("statefile", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "lease.json")
		const restarts = 50
		var ids []int
		t0 := time.Now()
		for i := range restarts {
			h := launchHolder(t, c, sp, holderArgs{state: state})
			ids = append(ids, h.waitID(10*time.Second))
			h.kill()
			held, err := sp.held(ctx)
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
		const restarts = 20
		var (
			ids     = map[int]bool{}
			starts  []time.Time
			maxHeld int
			t0      = time.Now()
		)
		base, err := sp.held(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range restarts {
			h := startHolder(t, c, sp, holderArgs{})
			ids[h.id()] = true
			starts = append(starts, time.Now())
			h.kill()
			held, err := sp.held(ctx)
			if err != nil {
				t.Fatal(err)
			}
			maxHeld = max(maxHeld, held)
			bound := base
			for _, s := range starts {
				if time.Since(s) < leaseDur+200*time.Millisecond+etcdRevokeTick {
					bound++
				}
			}
			if held > bound {
				t.Fatalf("restart %d: %d IDs held, but only %d holders started within the lease duration and a revoke tick", i, held, bound)
			}
		}
		loop := time.Since(t0)
		time.Sleep(leaseDur + 100*time.Millisecond + etcdRevokeTick)
		if held, err := sp.held(ctx); err != nil || held != 0 {
			t.Errorf("%d IDs held (%v) a lease duration and a revoke tick after the last kill, want 0", held, err)
		}
		t.Logf("%d restarts in %v (%v each), %d distinct IDs, at most %d held at once, 0 after they expired",
			restarts, loop.Round(time.Millisecond), (loop / restarts).Round(time.Millisecond), len(ids), maxHeld)
	})
}
