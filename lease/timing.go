package lease

import "time"

// Run-time and start-up backoff bases (spec: leases.md, Timing).
const (
	startBackoffBase = 100 * time.Millisecond
	runBackoffBase   = time.Second
	maxBackoff       = 24 * time.Hour
)

// timing holds the fixed margins of the lease schedule. In production the
// margin is SafetyMargin and the minimum TTL MinLeaseDuration; with
// testonly.ShortLeases both scale with the lease duration (a tenth of it,
// three tenths) so that fault tests finish in seconds.
type timing struct {
	margin time.Duration // subtracted from the TTL, and again from the renewal time
	minTTL time.Duration // a shorter granted TTL is illegal
}

func newTiming(leaseDuration time.Duration, short bool) timing {
	if short {
		m := leaseDuration / 10
		return timing{margin: m, minTTL: 3 * m}
	}
	return timing{margin: SafetyMargin, minTTL: MinLeaseDuration}
}

// legal reports whether a granted TTL may be used at all.
func (tm timing) legal(ttl time.Duration) bool { return ttl >= tm.minTTL }

// safe is how long after the request was sent the lease may be trusted:
// the granted TTL minus the margin.
func (tm timing) safe(ttl time.Duration) time.Duration { return ttl - tm.margin }

// renewAfter is when, after the request was sent, the next renewal is due:
// min(renewInterval, safe) - margin, never <= 0 (the margin leaves that
// much of the safe window for retries).
func (tm timing) renewAfter(renewInterval, ttl time.Duration) time.Duration {
	d := min(renewInterval, tm.safe(ttl))
	if d-tm.margin > 0 {
		return d - tm.margin
	}
	// Only reachable with an illegal TTL or unvalidated options: renew
	// half-way through what is left rather than at once or never.
	return max(d/2, time.Millisecond)
}

// backoff is the pause before retry number attempt (1, 2, ...):
// min(base*2^(attempt-1) + jitter, limit, 24h), jitter in [1ns, base] drawn
// by jitter(base). It returns 0 when limit <= 0 (no time left).
func backoff(base, limit time.Duration, attempt int, jitter func(time.Duration) time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	d := base
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	d += min(max(jitter(base), 1), base)
	return min(d, limit, maxBackoff)
}

// handoffNotBefore is the earliest timestamp a new holder may emit, from
// what the strategy reported with the lease l, the skew allowed between any
// holder's clock and the coordinator's, and the manager's safety margin
// (SafetyMargin; a tenth of the lease duration under testonly.ShortLeases).
// Zero (no constraint) when the strategy reports neither clock reading.
//
// With the previous expiry (SQL: the row's old expires_at; after a release,
// the release time): prevExpiry + skew. The previous holder stopped
// generating by its own local deadline, which is before the coordinator's
// expiry (its safe window is measured from before the coordinator applied
// its lease, and ends a margin before the TTL), or, after a release, before
// it released. Its last timestamp came from its own clock, at most skew
// ahead of the coordinator's: so it is below prevExpiry + skew. The new
// holder's factories start at or after notBefore on the new holder's clock
// (they wait if that clock is behind), so every timestamp it emits is above
// anything the previous holder could have emitted.
//
// Without it, but with the coordinator's clock at the grant (Redis reports
// TIME): coordinatorNow + skew - min(margin, hold), hold being
// l.ReleaseHold (negative counts as 0). The ID was free at coordinatorNow,
// so its previous holder's lease had ended by then, in one of two ways:
//
//   - It expired, at Ecoord <= coordinatorNow on the coordinator's clock.
//     The old holder sent its last successful request at local time s;
//     the coordinator applied the TTL no earlier, so the key expired at
//     E >= s + TTL (real time; both clocks are monotonic and run at the
//     same rate over a lease). The old holder's local deadline was
//     s + TTL - margin <= E - margin on its own monotonic clock: it
//     generated nothing after E - margin, and its wall clock, at most skew
//     ahead of the coordinator's, read at most Ecoord - margin + skew then.
//   - It was released. The old holder stopped generating before it sent
//     the release (the manager disables the factories first), so before
//     the coordinator applied it, at R on the coordinator's clock; the
//     coordinator then kept the ID taken for hold, so R + hold <=
//     coordinatorNow. A timestamp never passes its process's wall clock
//     (see reclaimNotBefore), so the old holder's were at most R + skew.
//
// Either way every old timestamp is below coordinatorNow + skew -
// min(margin, hold). With the production margin (10s) and Redis's default
// hold (1s, the default skew) this is at or before coordinatorNow and
// costs no wait (beyond the new holder's clock lagging the coordinator's);
// a skew allowance beyond both (short test leases, HandoffSkew raised) is
// waited for in part. With hold 0 (a coordinator that frees a released ID
// at once and cannot tell a released ID from an expired one) it is
// coordinatorNow + skew: safe, but every acquisition waits about the
// skew. The bound assumes the previous holder released with the hold the
// new holder's strategy reports; every holder sharing the coordinator's
// namespace must be configured alike (a holder that frees at once hands
// off safely to one whose strategy reports hold 0).
//
// With neither reading (etcd reports no server time), nothing guards the
// hand-off but the margin itself: the old holder stopped at least margin
// before the coordinator freed an expired ID (as above), so with clocks
// within margin/2 of each other every new timestamp is above every old
// one. A released ID re-acquired at once relies on the clocks agreeing:
// its old holder stopped only just before.
func handoffNotBefore(l Lease, skew, margin time.Duration) time.Time {
	switch {
	case !l.PrevExpiry.IsZero():
		return l.PrevExpiry.Add(skew)
	case !l.CoordinatorNow.IsZero():
		return l.CoordinatorNow.Add(skew - min(margin, max(l.ReleaseHold, 0)))
	}
	return time.Time{}
}

// reclaimNotBefore is the earliest timestamp the factories may emit on a
// lease reclaimed from Options.StateFile, given the clock readings the
// strategy reported (l.PrevExpiry: the lease's expiry before the reclaim;
// l.CoordinatorNow: the coordinator's clock during the reclaim), now on the
// local clock and the skew allowance.
//
// The previous holder is this process's previous incarnation (or another
// process that used the same state file), not a stranger, and it has
// stopped: the state file stays locked for the life of a manager, and a
// manager disables its factories before it lets go of the file (or dies
// with it). So the previous holder's timestamps are bounded by two things:
//
//   - its lease: it emitted nothing past its own deadline, which is before
//     the coordinator's expiry (see handoffNotBefore): below
//     PrevExpiry + skew;
//   - the moment it stopped, which was before this reclaim: every
//     timestamp is a reading of the emitting process's clock (a counter's
//     timestamp lags that clock while idle and catches up in bursts, it
//     never passes it; a sortable timestamp is the reading itself), so
//     all of them are at most its clock when it stopped, at most skew
//     ahead of the coordinator's clock then, and so below
//     CoordinatorNow + skew.
//
// notBefore is therefore min(PrevExpiry, CoordinatorNow) + skew. A lease
// that expired at least skew ago costs nothing; after a crash and a quick
// restart the first timestamp waits up to skew (plus however far the
// coordinator's clock is ahead of ours) — never the hours left of the
// previous incarnation's lease, which is what the plain hand-off guard
// (PrevExpiry + skew) would impose. Waiting out the skew matters even on
// one machine: a wall clock stepped back between incarnations would
// otherwise repeat timestamps. If the strategy reports neither reading,
// the local clock stands in for the coordinator's; ours may be skew behind
// it, so the allowance doubles: now + 2*skew.
func reclaimNotBefore(l Lease, now time.Time, skew time.Duration) time.Time {
	bound := l.CoordinatorNow
	if !l.PrevExpiry.IsZero() && (bound.IsZero() || l.PrevExpiry.Before(bound)) {
		bound = l.PrevExpiry
	}
	if bound.IsZero() {
		return now.Round(0).Add(2 * skew)
	}
	return bound.Add(skew)
}
