package lease

import (
	"time"

	"github.com/once-go/once/lease/driver"
)

// Run-time and start-up backoff bases (spec: leases.md, Timing).
const (
	startBackoffBase = 100 * time.Millisecond
	runBackoffBase   = time.Second
	maxBackoff       = 24 * time.Hour
)

// timing holds the fixed margins of the lease schedule. In production the
// margin is SafetyMargin and the minimum TTL MinLeaseDuration; in options
// marked by ShortLeases (oncetest builds only) both scale with the lease duration (a
// tenth of it, three tenths) so that fault tests finish in seconds.
type timing struct {
	margin time.Duration // subtracted from the TTL, and again from the renewal time
	minTTL time.Duration // a shorter granted TTL is illegal
}

func newTiming(leaseDuration time.Duration, short bool) timing {
	if short {
		m := leaseDuration / 10
		return timing{margin: m, minTTL: 3 * m}
	}
	return timing{margin: driver.SafetyMargin, minTTL: driver.MinLeaseDuration}
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

// handoffNotBefore is the earliest timestamp a new holder may emit, given
// what the strategy reported with the lease l, now on the local clock, the
// skew allowed between any two clocks involved, and the manager's safety
// margin (SafetyMargin, or a tenth of a short test lease).
//
// The previous holder of the ID stopped generating in one of two ways:
//
//   - Its lease expired. It sent its last successful request at local time
//     s; the coordinator applied the TTL no earlier, so the lease expired
//     at E >= s + TTL (real time; clocks run at the same rate over a
//     lease). Its own deadline was s + TTL - margin <= E - margin: it
//     emitted nothing after E - margin.
//   - It released the ID. It stopped generating before it sent the
//     release (the manager disables the factories first), so before the
//     coordinator applied it at R; the coordinator then kept the ID taken
//     for hold (l.ReleaseHold, negative counts as 0), so the ID was free
//     no earlier than R + hold.
//
// A timestamp never passes its process's wall clock (see
// reclaimNotBefore), and that clock is at most skew ahead of the
// coordinator's. So, by what the strategy reports:
//
//   - PrevExpiry (SQL: the row's old expires_at, the release time after a
//     release, 1970 for a row never held): every old timestamp is below
//     PrevExpiry + skew, the bound returned. A long-past expiry costs no
//     wait.
//   - CoordinatorNow only (Redis: the ID was free at that reading): the old
//     holder's timestamps are below CoordinatorNow + skew - min(margin,
//     hold), the bound returned. With the production margin and Redis's
//     default hold (1s, the default skew) that is CoordinatorNow itself.
//   - Neither (etcd): the local clock stands in for the coordinator's. It
//     may lag the old holder's by 2*skew (each within skew of the
//     coordinator's), so the bound is now + 2*skew - min(margin, hold):
//     with etcd's default hold of 3s (at least twice the skew, rounded up
//     to etcd's whole-second TTLs) it is in the past and costs no wait;
//     a strategy that frees a released ID at once costs 2*skew.
//
// The new holder's factories start at or after the bound on the new
// holder's clock (they wait if that clock is behind), so every timestamp
// they emit is above anything the previous holder could have emitted. The
// bound assumes every holder sharing the coordinator's namespace releases
// the way the new holder's strategy reports (the same ReleaseHold).
func handoffNotBefore(l driver.Lease, now time.Time, skew, margin time.Duration) time.Time {
	hold := min(margin, max(l.ReleaseHold, 0))
	switch {
	case !l.PrevExpiry.IsZero():
		return l.PrevExpiry.Add(skew)
	case !l.CoordinatorNow.IsZero():
		return l.CoordinatorNow.Add(skew - hold)
	}
	return now.Round(0).Add(2*skew - hold)
}

// reclaimNotBefore is the earliest timestamp the factories may emit on a
// lease reclaimed from Options.StateFile, given the clock readings the
// strategy reported (l.PrevExpiry: the lease's expiry before the reclaim;
// l.CoordinatorNow: the coordinator's clock during the reclaim), now on the
// local clock, the skew allowance, and local: the bound the state file
// gives from this boot's own clocks (zero when unknown; see
// stateFile.clockBound).
//
// The previous holder is this process's previous incarnation on the same
// host and boot (the state file records both), not a stranger, and it has
// stopped: the state file stays locked for the life of a manager, and a
// manager disables its factories before it lets go of the file (or dies
// with it). So the previous holder's timestamps are bounded three ways,
// and the least bound is returned:
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
//     CoordinatorNow + skew;
//   - the same moment, read on this boot's clocks: that clock was this
//     very machine's, and local bounds it without any skew (a wall clock
//     stepped back between the incarnations moves local ahead of now, and
//     the first timestamp waits for it).
//
// After a crash and a quick restart on the same boot the first timestamp
// therefore waits nothing (or the step back of the wall clock); without
// local, up to skew (plus however far the coordinator's clock is ahead of
// ours); never the hours left of the previous incarnation's lease, which
// is what the plain hand-off guard (PrevExpiry + skew) would impose. A
// lease that expired at least skew ago costs nothing. If the strategy
// reports neither reading, the local clock stands in for the
// coordinator's; ours may be skew behind it, so the allowance doubles:
// now + 2*skew.
func reclaimNotBefore(l driver.Lease, now time.Time, skew time.Duration, local time.Time) time.Time {
	bound := l.CoordinatorNow
	if !l.PrevExpiry.IsZero() && (bound.IsZero() || l.PrevExpiry.Before(bound)) {
		bound = l.PrevExpiry
	}
	if bound.IsZero() {
		bound = now.Round(0).Add(2 * skew)
	} else {
		bound = bound.Add(skew)
	}
	if !local.IsZero() && local.Before(bound) {
		return local
	}
	return bound
}
