package faultsuite

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/tests/faultproxy"
)

// partitionRig starts an in-process holder whose coordinator connections
// go through a fault proxy, and waits until it generates. Every partition
// case needs a healthy lease before its fault: if the holder already lost
// one during the setup (on a loaded machine an acquire under -race can
// take most of a 2s TTL, so the lease arrives nearly expired), the setup
// is retried once on a fresh namespace, and the case is skipped, with the
// reason, if that fails too. Losses after the setup are the tests' subject
// and are never excused.
func partitionRig(t *testing.T, c Coordinator, o rigOptions) (*rig, *faultproxy.Proxy) {
	t.Helper()
	for try := 1; ; try++ {
		sp := c.Setup(t, false)
		p := proxy(t, sp)
		cl := c.open(t, sp, p, 4)
		r := startRig(t, cl.mustStrategy(t, false), o)
		r.gen.waitValues(t, time.Now(), 20, 3*time.Second)
		lost := r.ev.lost()
		if len(lost) == 0 {
			return r, p
		}
		acq := r.ev.events(okEnd(lease.OpAcquire))
		took := time.Duration(0)
		if len(acq) > 0 {
			took = acq[0].Duration
		}
		reason := fmt.Sprintf("setup %d: lease lost before the fault (first acquire took %v of a %v TTL): %v", try, took, orDefault(o.leaseDur, leaseDur), lost[0].err)
		r.close()
		if try == 2 {
			t.Skipf("precondition not met on this loaded machine, twice: %s", reason)
		}
		t.Logf("%s; retrying the setup", reason)
	}
}

// TestPartitionShort: the coordinator is unreachable (connections reset)
// for 1.2s, well less than what is left of the safe window: renewals fail
// and are retried, the factory never stops (no refused draw, no loss), and
// the first renewal after the heal keeps the same machine ID. The case
// uses a 4s lease (safe window 3.6s, renewals 0.6s apart, retry pauses up
// to 1s) rather than the suite's 2s: with 2s, a renewal or acquire slowed
// to over a second by -race on two loaded CPUs left less of the window
// than the cut, and the loss that followed was the load, not a bug. The
// cut is placed after a renewal that answered quickly, so that at least
// cut + 1.5s of its window remains when the cut starts.
func PartitionShort(t *testing.T) {
	const (
		lease4 = 4 * time.Second
		cut    = 1200 * time.Millisecond
		slack  = 1500 * time.Millisecond
	)
	forEach(t, networked, func(t *testing.T, c Coordinator) {
		r, p := partitionRig(t, c, rigOptions{leaseDur: lease4, renewEvery: time.Second})
		id := r.m.MachineID()
		start := time.Now()
		var ren timedEvent
		for try := 0; ; try++ {
			ren = r.waitRenewal(time.Now(), 5*time.Second)
			if time.Until(r.deadlineOf(ren)) >= cut+slack {
				break
			}
			if try == 10 {
				t.Skipf("precondition not met: no renewal in 10 left %v of its window (last took %v)", cut+slack, ren.Duration)
			}
		}
		p.Cut()
		cutAt := time.Now()
		time.Sleep(cut)
		p.Heal()
		healAt := time.Now()
		after := r.waitRenewal(healAt, lease4)
		r.gen.waitValues(t, after.at, 50, 2*time.Second)
		endAt := time.Now()
		draws := r.gen.halt()

		if lost := r.ev.lost(); len(lost) > 0 {
			t.Fatalf("lease lost during a %v cut: %v", healAt.Sub(cutAt), lost[0].err)
		}
		// The cut must bite: a renewal was attempted during it. It then
		// failed and the manager retried, or the client library retried
		// it itself until the heal (go-redis does, MaxRetries 3).
		retries := r.ev.events(func(e lease.Event) bool { return e.Kind == lease.EventRetry && e.Op == lease.OpRenew })
		during := r.ev.events(func(e lease.Event) bool { return e.Kind == lease.EventStart && e.Op == lease.OpRenew })
		bit := 0
		for _, e := range during {
			if e.at.After(cutAt) && e.at.Before(healAt) {
				bit++
			}
		}
		if bit == 0 {
			t.Errorf("no renewal attempted during the cut: the cut did not bite")
		}
		s := summarise(draws, start, endAt)
		if s.refused > 0 {
			t.Errorf("%d draws refused during a cut shorter than the safe window, first at %s (%v after the cut): %v",
				s.refused, clock(s.first.start), s.first.start.Sub(cutAt), s.first.err)
		}
		if got := r.m.MachineID(); got != id {
			t.Errorf("machine ID %d after the heal, want %d", got, id)
		}
		// The renewal after the heal came within the window the one
		// before the cut had opened.
		if dl := r.deadlineOf(ren); !after.at.Before(dl) {
			t.Errorf("renewal after the heal at %s, past the deadline %s", clock(after.at), clock(dl))
		}
		seen := map[uint64]string{}
		n := checkDraws(t, "holder", draws, r.rf.events(), 0, seen)
		t.Logf("cut %v: %d renewals attempted during it, %d retried by the manager, first successful renewal %v after the heal; %d values, longest pause between values %v",
			healAt.Sub(cutAt).Round(time.Millisecond), bit, len(retries), after.at.Sub(healAt).Round(time.Millisecond), n, s.maxGap.Round(time.Millisecond))
	})
}

// TestPartitionLong: the coordinator is unreachable (connections reset)
// past the safe window. The factory refuses from the deadline the last
// renewal set (sent + TTL - margin, on the local monotonic clock), and
// not a value is drawn after it; the manager reports the loss; after the
// heal it acquires a lease again and generation resumes; no value repeats.
func PartitionLong(t *testing.T) {
	forEach(t, networked, func(t *testing.T, c Coordinator) {
		r, p := partitionRig(t, c, rigOptions{})
		testOutage(t, r, p.Cut, p.Heal, "cut")
	})
}

// TestBlackholeHang: the coordinator goes silent (a black hole: requests
// and replies are held, new connections hang) right after a renewal, so
// the next renewal call hangs past the deadline. The factory refuses from
// the deadline anyway (its own timer; the manager abandons the call at
// the same instant), nothing is drawn after it, and generation resumes
// after the heal with a new lease.
func BlackholeHang(t *testing.T) {
	forEach(t, networked, func(t *testing.T, c Coordinator) {
		r, p := partitionRig(t, c, rigOptions{})
		hung := testOutage(t, r, p.Blackhole, p.Heal, "black hole")
		// The renewal in flight must have hung until the deadline (not
		// failed fast): that is what this case is about.
		var longest time.Duration
		for _, e := range hung {
			longest = max(longest, e.Duration)
		}
		if longest < safeWindow-renewAfter-100*time.Millisecond {
			t.Errorf("longest failed renewal took %v; a hung call should last until the deadline (~%v)", longest, safeWindow-renewAfter)
		}
	})
}

// testOutage runs one outage past the safe window (fault, wait past the
// deadline, heal) against rig r and checks the deadline, the loss and the
// recovery. It returns the failed renewal events.
func testOutage(t *testing.T, r *rig, fault, heal func(), what string) []timedEvent {
	t.Helper()
	start := time.Now()
	ren := r.waitRenewal(start, 2*time.Second)
	fault()
	faultAt := time.Now()
	grant, _ := r.rf.last(lifeActivate, lifeEnable, lifeExtend)
	deadline := grant.validUntil
	// Stay in the fault until well past the deadline.
	time.Sleep(time.Until(deadline.Add(400 * time.Millisecond)))
	if g, _ := r.rf.last(lifeActivate, lifeEnable, lifeExtend); g.at.After(faultAt) {
		t.Fatalf("the factory got a new deadline (%s at %s) during the %s", g.kind, clock(g.at), what)
	}
	heal()
	healAt := time.Now()
	react := waitLife(t, r.rf, lifeActivate, healAt, 5*time.Second)
	r.gen.waitValues(t, react.at, 50, 3*time.Second)
	draws := r.gen.halt()

	// The deadline is the spec's formula applied to the last renewal.
	if dl := computedDeadline(ren); deadline.After(dl.Add(time.Millisecond)) || dl.Sub(deadline) > 100*time.Millisecond {
		t.Errorf("factory deadline %s; the last renewal (%v, TTL %v) gives %s", clock(deadline), ren.Duration, ren.TTL, clock(dl))
	}
	// Generation ran until the deadline and stopped there. A draw that
	// started just before the deadline reads the factory's clock after it
	// started and may rightly be refused: refusing early is safe, so only
	// refusals more than a millisecond early count as premature.
	before := summarise(draws, start, deadline.Add(-time.Millisecond))
	if before.refused > 0 {
		t.Errorf("%d draws refused before the deadline, first at %s (%v before it): %v",
			before.refused, clock(before.first.start), deadline.Sub(before.first.start), before.first.err)
	}
	first, ok := firstRefusal(draws, deadline)
	switch {
	case !ok:
		t.Errorf("no draw refused after the deadline %s", clock(deadline))
	case first.start.Sub(deadline) > lateness:
		t.Errorf("first refusal %v after the deadline (allowed %v)", first.start.Sub(deadline), lateness)
	case !errors.Is(first.err, nonce.ErrDisabled):
		t.Errorf("refusal error %v, want nonce.ErrDisabled", first.err)
	}
	if n := strays(draws, deadline, react.at); n > 0 {
		t.Errorf("%d values drawn between the deadline and the new lease", n)
	}
	// The manager reports the loss: locally expired, or timed out when
	// the call hung.
	lost := r.ev.lost()
	if len(lost) == 0 {
		t.Fatalf("no loss reported after a %s past the deadline", what)
	}
	if err := lost[0].err; !errors.Is(err, lease.ErrExpired) && !errors.Is(err, lease.ErrTimeout) {
		t.Errorf("loss reason %v, want ErrExpired or ErrTimeout", err)
	}
	if lost[0].at.Before(deadline) {
		t.Errorf("loss reported %v before the deadline", deadline.Sub(lost[0].at))
	}
	if r.m.MachineID() < 0 || r.m.Err() != nil {
		t.Errorf("after the heal: machine ID %d, Err %v", r.m.MachineID(), r.m.Err())
	}
	seen := map[uint64]string{}
	n := checkDraws(t, "holder", draws, r.rf.events(), 0, seen)
	failed := r.ev.events(func(e lease.Event) bool {
		return e.Kind == lease.EventEnd && e.Op == lease.OpRenew && e.Err != nil
	})
	t.Logf("%s at +%v into the window; deadline %s; first refusal +%v; loss (%v) +%v; heal at +%v; new lease (ID %d) %v after the heal; %d values, %d failed renewals",
		what, faultAt.Sub(ren.at.Add(-ren.Duration)).Round(time.Millisecond), clock(deadline),
		first.start.Sub(deadline).Round(time.Microsecond), lost[0].err, lost[0].at.Sub(deadline).Round(time.Microsecond),
		healAt.Sub(deadline).Round(time.Millisecond), react.id, react.at.Sub(healAt).Round(time.Millisecond), n, len(failed))
	return failed
}

// waitLife waits for a lifecycle call of kind recorded at or after since.
func waitLife(t *testing.T, rf *recFactory, kind lifeKind, since time.Time, d time.Duration) lifeEvent {
	t.Helper()
	d = waitBound(d)
	end := time.Now().Add(d)
	for {
		for _, e := range rf.events() {
			if e.kind == kind && !e.at.Before(since) {
				return e
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no %s within %v after %s", kind, d, clock(since))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestDroppedReply: the server applies a renewal but its reply is lost
// and the connection breaks (the proxy swallows replies, then resets the
// connections that lost one). The outcome is unknown to the client; the
// renewal is retried (by the manager or the client library) and the
// replay succeeds: no loss, no refused draw, same machine ID.
func DroppedReply(t *testing.T) {
	forEach(t, networked, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, false)
		px := proxy(t, sp)
		if sp.OneTrip != nil {
			sp.Via = sp.OneTrip
		}
		cl := c.open(t, sp, px, 4)
		st := cl.mustStrategy(t, false)
		r := startRig(t, st, rigOptions{})
		r.gen.waitValues(t, time.Now(), 20, 3*time.Second)
		id := r.m.MachineID()
		start := time.Now()
		ren := r.waitRenewal(start, 2*time.Second)
		if _, ok := st.(driver.Lister); ok {
			// The free-ID count that follows each renewal must be done
			// before replies are dropped: a List cut off by its deadline
			// takes its connection down with it, and a new connection
			// cannot finish its handshake without replies, so the next
			// renewal would never reach the server.
			r.ev.waitEvent(t, ren.at, 2*time.Second, "free-ID count after the renewal",
				func(e lease.Event) bool { return e.Kind == lease.EventPool })
		}
		ctx := ctxFor(t, 10*time.Second)
		before, held, err := sp.Expiry(ctx, id)
		if err != nil || !held {
			t.Fatalf("expiry of ID %d: %v, held %v", id, err, held)
		}
		px.DropReplies(-1)
		dropAt := time.Now()
		// Wait until the server shows the next renewal applied.
		var applied time.Time
		for applied.IsZero() {
			exp, held, err := sp.Expiry(ctx, id)
			switch {
			case err != nil || !held:
				t.Fatalf("expiry of ID %d: %v, held %v", id, err, held)
			case exp.Sub(before) > 100*time.Millisecond:
				applied = time.Now()
			case time.Since(dropAt) > safeWindow:
				t.Fatalf("no renewal applied within %v of dropping replies", safeWindow)
			}
			time.Sleep(5 * time.Millisecond)
		}
		px.Heal()
		healAt := time.Now()
		after := r.waitRenewal(dropAt, safeWindow)
		r.gen.waitValues(t, time.Now(), 50, 2*time.Second)
		endAt := time.Now()
		draws := r.gen.halt()

		if st := px.Stats(); st.Swallowed == 0 {
			t.Errorf("no reply bytes swallowed: %+v", st)
		}
		if lost := r.ev.lost(); len(lost) > 0 {
			t.Fatalf("lease lost after a dropped reply: %v", lost[0].err)
		}
		if s := summarise(draws, start, endAt); s.refused > 0 {
			t.Errorf("%d draws refused, first at %s: %v", s.refused, clock(s.first.start), s.first.err)
		}
		if got := r.m.MachineID(); got != id {
			t.Errorf("machine ID %d after the replay, want %d", got, id)
		}
		retried := r.ev.events(func(e lease.Event) bool { return e.Kind == lease.EventRetry && e.Op == lease.OpRenew })
		n := checkDraws(t, "holder", draws, r.rf.events(), 0, map[uint64]string{})
		how := "by the client library (the manager saw one slow success)"
		if len(retried) > 0 {
			how = "by the manager (" + retried[0].Err.Error() + ")"
		}
		t.Logf("renewal applied %v after replies were dropped; healed %v later; replayed %s; renewed again %v after the heal; %d values",
			applied.Sub(dropAt).Round(time.Millisecond), healAt.Sub(applied).Round(time.Millisecond), how,
			after.at.Sub(healAt).Round(time.Millisecond), n)
	})
}
