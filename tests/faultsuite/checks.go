package faultsuite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// checkDraws is the suite's safety check. It replays the factory's
// lifecycle calls in time order and checks every value drawn:
//
//   - it was drawn while the factory held a lease: after an activate or
//     enable, before any later disable, and (this is the deadline check)
//     the draw started before the lease's valid-until deadline;
//   - it carries the lease's machine ID;
//   - its timestamp is not after the deadline (on the factory's clock,
//     which is off by skew) nor before the lease's hand-off notBefore;
//   - it was never drawn before (seen collects values across holders and
//     checks; who names this holder in failure messages).
//
// A draw takes time: the generator reads the clock, then calls the
// factory, which may take its lease state at any instant until the call
// returns. A value passes if it is valid under the state at the draw's
// start or under any state the lifecycle calls set before its end (an
// activate that began while the draw was in flight, say).
//
// It returns how many values it checked.
func checkDraws(t testing.TB, who string, draws []draw, life []lifeEvent, skew time.Duration, seen map[uint64]string) int {
	t.Helper()
	var (
		cur    leaseState
		i, n   int
		faults int
	)
	fail := func(format string, args ...any) {
		if faults++; faults <= 5 {
			t.Errorf("%s: "+format, append([]any{who}, args...)...)
		}
	}
	for _, d := range draws {
		for i < len(life) && !life[i].at.After(d.start) {
			cur = cur.apply(life[i])
			i++
		}
		if d.err != nil {
			continue
		}
		n++
		problem := cur.check(d, skew)
		for j, alt := i, cur; problem != "" && j < len(life) && !life[j].at.After(d.end); j++ {
			alt = alt.apply(life[j])
			if alt.check(d, skew) == "" {
				problem = ""
			}
		}
		if problem != "" {
			fail("%s", problem)
		}
		if prev, dup := seen[d.v]; dup {
			fail("value %#x (drawn at %s) was already drawn by %s", d.v, clock(d.start), prev)
		}
		seen[d.v] = who
	}
	if faults > 5 {
		t.Errorf("%s: %d faults in all", who, faults)
	}
	return n
}

// leaseState is the factory's lease as the lifecycle calls so far set it.
type leaseState struct {
	on     bool
	id     int
	nb, vu time.Time
}

// apply returns the state after lifecycle call e.
func (s leaseState) apply(e lifeEvent) leaseState {
	switch e.kind {
	case lifeActivate:
		return leaseState{on: e.err == nil, id: e.id, nb: e.notBefore, vu: e.validUntil}
	case lifeEnable:
		s.on, s.vu = e.err == nil, e.validUntil
	case lifeExtend:
		s.vu = e.validUntil
	case lifeDisable:
		s.on = false
	}
	return s
}

// check says what is wrong with value draw d under state s ("" if
// nothing): the lease rules checkDraws lists.
func (s leaseState) check(d draw, skew time.Duration) string {
	p := nonce.Split64(d.v, time.Time{})
	switch {
	case !s.on:
		return fmt.Sprintf("value %#x drawn at %s while the factory held no lease", d.v, clock(d.start))
	case !s.vu.IsZero() && !d.start.Before(s.vu):
		return fmt.Sprintf("value %#x drawn at %s, %v after the lease's deadline %s", d.v, clock(d.start), d.start.Sub(s.vu), clock(s.vu))
	case p.MachineID != s.id:
		return fmt.Sprintf("value %#x carries machine ID %d, the lease is for %d", d.v, p.MachineID, s.id)
	case !s.vu.IsZero() && p.Time.After(s.vu.Add(skew)):
		return fmt.Sprintf("value %#x has timestamp %s after the deadline %s (skew %v)", d.v, clock(p.Time), clock(s.vu.Add(skew)), skew)
	case !s.nb.IsZero() && p.Time.Before(s.nb):
		return fmt.Sprintf("value %#x has timestamp %s before the hand-off guard's notBefore %s", d.v, clock(p.Time), clock(s.nb))
	}
	return ""
}

// clock formats t for failure messages.
func clock(t time.Time) string { return t.Format("15:04:05.000000") }

// refusals summarises the draws in [from, to): values, refused draws and
// the first refusal.
type refusals struct {
	values, refused int
	first           draw // first refused draw (zero if none)
	maxGap          time.Duration
}

func summarise(draws []draw, from, to time.Time) refusals {
	var r refusals
	var last time.Time
	for _, d := range draws {
		if d.start.Before(from) || !d.start.Before(to) {
			continue
		}
		if d.err != nil {
			if r.refused == 0 {
				r.first = d
			}
			r.refused++
			continue
		}
		if !last.IsZero() {
			r.maxGap = max(r.maxGap, d.start.Sub(last))
		}
		last = d.start
		r.values++
	}
	return r
}

// strays counts the values drawn from `from` on that were over before
// grant began: none of them can be the new lease's. (A draw still in
// flight when the grant began may rightly carry it; checkDraws checks
// those.)
func strays(draws []draw, from, grant time.Time) int {
	n := 0
	for _, d := range draws {
		if d.err == nil && !d.start.Before(from) && d.end.Before(grant) {
			n++
		}
	}
	return n
}

// lastValueBefore returns the start of the last value drawn before t.
func lastValueBefore(draws []draw, t time.Time) time.Time {
	var last time.Time
	for _, d := range draws {
		if d.err == nil && d.start.Before(t) {
			last = d.start
		}
	}
	return last
}

// firstRefusal returns the first refused draw that started at or after
// from.
func firstRefusal(draws []draw, from time.Time) (draw, bool) {
	for _, d := range draws {
		if d.err != nil && !d.start.Before(from) {
			return d, true
		}
	}
	return draw{}, false
}

// maxTimestamp returns the highest timestamp among the values drawn.
func maxTimestamp(draws []draw) (time.Time, bool) {
	var hi time.Time
	ok := false
	for _, d := range draws {
		if d.err == nil {
			if ts := nonce.Split64(d.v, time.Time{}).Time; !ok || ts.After(hi) {
				hi, ok = ts, true
			}
		}
	}
	return hi, ok
}

// minTimestamp returns the lowest timestamp among the values drawn.
func minTimestamp(draws []draw) (time.Time, bool) {
	var lo time.Time
	ok := false
	for _, d := range draws {
		if d.err == nil {
			if ts := nonce.Split64(d.v, time.Time{}).Time; !ok || ts.Before(lo) {
				lo, ok = ts, true
			}
		}
	}
	return lo, ok
}

// fillAllBut makes other holders hold every machine ID of sp but keep,
// for at least d, so that a holder started next gets keep and a contender
// can get nothing else.
func fillAllBut(t *testing.T, sp *Space, cl *Client, keep int, d time.Duration) {
	t.Helper()
	if sp.Fill != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := sp.Fill(ctx, keep, d); err != nil {
			t.Fatalf("fill: %v", err)
		}
		return
	}
	occupy(t, cl, 511, d)
}

// occupy makes the namespace hold n machine IDs for d through a strategy
// of cl (as other processes would), so that the IDs left free are known
// to be few. It returns the leases.
func occupy(t *testing.T, cl *Client, n int, d time.Duration) []driver.Lease {
	t.Helper()
	s := cl.mustStrategy(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		leases []driver.Lease
		next   atomic.Int64
		wg     sync.WaitGroup
		errs   = make(chan error, 8)
	)
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				l, err := acquireRetry(ctx, s, d)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				leases = append(leases, l)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("occupying %d IDs: %v", n, err)
	}
	return leases
}

// acquireRetry acquires, retrying conflicts and transient failures (as
// the manager would) until ctx ends.
func acquireRetry(ctx context.Context, s driver.Strategy, d time.Duration) (driver.Lease, error) {
	for {
		l, err := s.Acquire(ctx, d)
		switch {
		case err == nil:
			return l, nil
		case ctx.Err() != nil:
			return l, fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case errors.Is(err, driver.ErrConflict), errors.Is(err, driver.ErrRetry):
			time.Sleep(2 * time.Millisecond)
		default:
			return l, err
		}
	}
}

// ctxFor returns a context ending after d, canceled when t ends.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
