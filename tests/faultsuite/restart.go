package faultsuite

import (
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease"
)

// TestCoordinatorRestart restarts the coordinator under a holder. Redis
// (a private server, no persistence: SHUTDOWN NOSAVE and start again on
// the same port) forgets every lease: the first renewal that reaches the
// new server is told the lease is gone (ErrLost), the factory is disabled
// and the manager acquires a new lease. SQL keeps its data; the restart
// is seen by the client as its sessions being killed server-side
// (pg_terminate_backend, KILL CONNECTION on our sessions only): renewals
// go on over new connections, no loss, same machine ID.
func CoordinatorRestart(t *testing.T) {
	forEach(t, networked, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, true)
		if sp.Restart == nil {
			t.Skip("no restart for this coordinator")
		}
		p := proxy(t, sp)
		cl := c.open(t, sp, p, 4)
		r := startRig(t, cl.mustStrategy(t, false), rigOptions{})
		r.gen.waitValues(t, time.Now(), 20, 3*time.Second)
		id := r.m.MachineID()
		start := time.Now()
		r.waitRenewal(start, 2*time.Second)
		restartAt := time.Now()
		if err := sp.Restart(ctxFor(t, 10*time.Second), p); err != nil {
			t.Fatalf("restart: %v", err)
		}
		upAt := time.Now()
		if !sp.RestartLoses {
			after := r.waitRenewal(upAt, safeWindow)
			r.gen.waitValues(t, after.at, 50, 2*time.Second)
			draws := r.gen.halt()
			if lost := r.ev.lost(); len(lost) > 0 {
				t.Fatalf("lease lost after our sessions were killed: %v", lost[0].err)
			}
			if s := summarise(draws, start, time.Now()); s.refused > 0 {
				t.Errorf("%d draws refused, first at %s: %v", s.refused, clock(s.first.start), s.first.err)
			}
			if got := r.m.MachineID(); got != id {
				t.Errorf("machine ID %d after the restart, want %d", got, id)
			}
			n := checkDraws(t, "holder", draws, r.rf.events(), 0, map[uint64]string{})
			t.Logf("sessions killed in %v; renewed on a new connection %v later; %d values, none refused",
				upAt.Sub(restartAt).Round(time.Millisecond), after.at.Sub(upAt).Round(time.Millisecond), n)
			return
		}
		loss := waitLoss(t, r, restartAt, 3*time.Second)
		if !errors.Is(loss.err, lease.ErrLost) {
			t.Errorf("loss after a restart that lost the data: %v, want ErrLost", loss.err)
		}
		// The first renewal after the server is back detects it: at most
		// one retry pause after the restart.
		if d := loss.at.Sub(upAt); d > renewEvery+lateness {
			t.Errorf("loss detected %v after the server was back (allowed %v)", d, renewEvery+lateness)
		}
		react := waitLife(t, r.rf, lifeActivate, loss.at, 5*time.Second)
		r.gen.waitValues(t, react.at, 50, 3*time.Second)
		draws := r.gen.halt()
		n := checkDraws(t, "holder", draws, r.rf.events(), 0, map[uint64]string{})
		t.Logf("server down and up in %v; loss (%v) %v after it was up; new lease (ID %d, was %d) %v later; %d values",
			upAt.Sub(restartAt).Round(time.Millisecond), loss.err, loss.at.Sub(upAt).Round(time.Millisecond),
			react.id, id, react.at.Sub(loss.at).Round(time.Millisecond), n)
	})
}

// waitLoss waits for the manager's first loss at or after since.
func waitLoss(t *testing.T, r *rig, since time.Time, d time.Duration) timedErr {
	t.Helper()
	d = waitBound(d)
	end := time.Now().Add(d)
	for {
		for _, l := range r.ev.lost() {
			if !l.at.Before(since) {
				return l
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no loss reported within %v", d)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestDataLoss wipes every lease under a holder (Redis: FLUSHALL on a
// private server; SQL: DELETE our table's rows and let the migrations
// refill it). Until the holder's next renewal the coordinator has
// forgotten it: another process can acquire the very same machine ID
// (here it does, at once) while the holder still generates with it. That
// is the duplicate window, inherent to losing the coordinator's data;
// the suite asserts that the next renewal closes it (ErrLost, factory
// disabled) within one renewal period, and measures it.
func DataLoss(t *testing.T) {
	forEach(t, nil, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, true)
		cl := c.open(t, sp, nil, 4)
		r := startRig(t, cl.mustStrategy(t, true), rigOptions{})
		r.gen.waitValues(t, time.Now(), 20, 3*time.Second)
		id := r.m.MachineID()
		other := c.open(t, sp, nil, 2).mustStrategy(t, true)
		ctx := ctxFor(t, 10*time.Second)
		r.waitRenewal(time.Now(), 2*time.Second)
		wipeAt := time.Now()
		if err := sp.Wipe(ctx); err != nil {
			t.Fatalf("wipe: %v", err)
		}
		wipedAt := time.Now()
		// Another process takes the lowest free ID: ours, now forgotten.
		l, err := acquireRetry(ctx, other, leaseDur)
		gotAt := time.Now()
		if err != nil {
			t.Fatalf("contender: %v", err)
		}
		defer other.Release(ctx, l)
		loss := waitLoss(t, r, wipeAt, 3*time.Second)
		if !errors.Is(loss.err, lease.ErrLost) {
			t.Errorf("loss after the data was wiped: %v, want ErrLost", loss.err)
		}
		dis := waitLife(t, r.rf, lifeDisable, wipeAt, time.Second)
		react := waitLife(t, r.rf, lifeActivate, dis.at, 5*time.Second)
		r.gen.waitValues(t, react.at, 50, 3*time.Second)
		draws := r.gen.halt()

		if l.MachineID != id {
			// The holder's renewal came first (a slow wipe or a slow
			// contender): it learned of the loss and took ID 0 back
			// before anyone else could. No duplicate this time; that is
			// only fine if the loss was indeed seen first.
			if !dis.at.Before(gotAt) {
				t.Fatalf("the contender got machine ID %d, not the holder's %d, yet the holder was disabled only after that", l.MachineID, id)
			}
			t.Logf("no duplicate window this time: the holder saw the loss %v after the wipe, before the contender acquired", dis.at.Sub(wipedAt))
		}
		detect := dis.at.Sub(wipedAt)
		if detect > renewAfter+lateness {
			t.Errorf("loss detected %v after the wipe; the next renewal is due within %v (allowed %v)", detect, renewAfter, renewAfter+lateness)
		}
		window := max(dis.at.Sub(gotAt), 0)
		exposed := summarise(draws, gotAt, dis.at).values
		if react.id == l.MachineID {
			t.Errorf("holder re-acquired machine ID %d, which the contender holds", l.MachineID)
		}
		n := checkDraws(t, "holder", draws, r.rf.events(), 0, map[uint64]string{})
		t.Logf("duplicate window %v (contender held ID %d %v after the wipe; holder disabled %v after the wipe, reason %v); %d values drawn by the holder inside it; new lease ID %d; %d values",
			window.Round(time.Microsecond), id, gotAt.Sub(wipedAt).Round(time.Microsecond), detect.Round(time.Microsecond),
			loss.err, exposed, react.id, n)
	})
}
