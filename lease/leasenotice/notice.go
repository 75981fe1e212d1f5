package leasenotice

import (
	"errors"
	"log/slog"
	"time"

	"github.com/once-go/once/lease"
)

// NoticeKind says what a [Notice] reports. The keep-alive kinds have the
// meanings of the etcd3 client's Lease events (keepaliveFired,
// keepaliveSucceeded, keepaliveFailed, lost).
type NoticeKind string

// Notice kinds.
const (
	// NoticeAcquired: a lease was granted (at start, after a loss, or
	// reclaimed from the state file); the factories run on it.
	NoticeAcquired NoticeKind = "acquired"
	// NoticeAcquireRetry: the next acquisition attempt waits Delay, after
	// a failed attempt (Reason says why) or, with a nil Reason, after a
	// lease that was lost soon after it was granted (the manager backs
	// off so that a crash loop does not hammer the coordinator). No lease
	// is held; the factories are disabled.
	NoticeAcquireRetry NoticeKind = "acquire_retry"
	// NoticeKeepAliveFired: a renewal request is being sent.
	NoticeKeepAliveFired NoticeKind = "keepalive_fired"
	// NoticeKeepAliveSucceeded: the coordinator renewed the lease; the
	// factories' deadline moved to ValidUntil.
	NoticeKeepAliveSucceeded NoticeKind = "keepalive_succeeded"
	// NoticeKeepAliveFailed: a renewal failed in a recoverable way (the
	// outcome is unknown) and is retried after Delay. The lease may still
	// be ours: the factories stay enabled until ValidUntil.
	NoticeKeepAliveFailed NoticeKind = "keepalive_failed"
	// NoticeLost: the lease is no longer trusted, final for that lease.
	// The factories were disabled before the notice; a dynamic strategy's
	// manager then acquires a new lease (NoticeAcquired again).
	NoticeLost NoticeKind = "lost"
	// NoticeReleased: the lease was given back (at shutdown, or after a
	// loss when the coordinator might still count it as ours). Result is
	// "ok" or the class of the release error (best effort).
	NoticeReleased NoticeKind = "released"
)

// Notice is a lease lifecycle event in the style of the etcd3 client's
// Lease: what happened to the lease, with the fields an operator needs.
// A [Notifier] derives notices from a manager's [Event] values; a [Feed]
// fans them out to subscribers. Fields that do not apply are zero.
type Notice struct {
	Kind NoticeKind
	// Time is when the manager reported the event.
	Time time.Time
	// Strategy is the strategy's name ("sql", "redis-key", "etcd").
	Strategy string
	// Source says why the operation ran: initial, scheduled, reacquire,
	// shutdown.
	Source string
	// MachineID is the machine ID concerned, -1 when none.
	MachineID int
	// Attempt numbers the renewal requests of one lease period
	// (keepalive_*) and the acquisition attempts of one search for a lease
	// (acquired): 1 for the first, counted again from 1 after each success
	// or loss. For acquire_retry it is the manager's backoff step
	// (lease.Event.Attempt).
	Attempt int
	// Delay is the pause before the next attempt (keepalive_failed,
	// acquire_retry).
	Delay time.Duration
	// Reason is why: the error of a failed attempt, the loss reason (see
	// [LossReason]), or the error of a release.
	Reason error
	// Result classifies the outcome: "ok" for acquired,
	// keepalive_succeeded and a clean release; the error class of
	// lease.Event.Result ("retry", "conflict", "timeout", ...) for
	// keepalive_failed, acquire_retry and a failed release; the
	// [LossReason] for lost.
	Result string
	// GrantedTTL is the TTL the coordinator granted (acquired,
	// keepalive_succeeded).
	GrantedTTL time.Duration
	// ValidUntil is the end of the lease's safe window on the local
	// monotonic clock: the factories generate until then unless renewed.
	// Zero when no lease is trusted (acquire_retry, lost, released).
	ValidUntil time.Time
	// Remaining is the validity left at Time: ValidUntil - Time, never
	// negative; 0 when no lease is trusted.
	Remaining time.Duration
	// RemainingTTL is, for lost, how much of the coordinator's TTL was
	// left (counted from the request that obtained it); 0 when none.
	RemainingTTL time.Duration
}

// LogValue presents a notice as a group of slog attributes: kind,
// strategy, source, machine_id, and those of attempt, delay, result,
// reason, granted_ttl, remaining and remaining_ttl that apply.
func (n Notice) LogValue() slog.Value { return slog.GroupValue(n.Attrs()...) }

// Attrs returns the notice's slog attributes (see [Notice.LogValue]).
func (n Notice) Attrs() []slog.Attr {
	attrs := make([]slog.Attr, 0, 11)
	attrs = append(attrs, slog.String("kind", string(n.Kind)), slog.String("strategy", n.Strategy),
		slog.String("source", n.Source), slog.Int("machine_id", n.MachineID))
	if n.Attempt > 0 {
		attrs = append(attrs, slog.Int("attempt", n.Attempt))
	}
	if n.Delay > 0 {
		attrs = append(attrs, slog.Duration("delay", n.Delay))
	}
	if n.Result != "" {
		attrs = append(attrs, slog.String("result", n.Result))
	}
	if n.Reason != nil {
		attrs = append(attrs, slog.String("reason", n.Reason.Error()))
	}
	if n.GrantedTTL > 0 {
		attrs = append(attrs, slog.Duration("granted_ttl", n.GrantedTTL))
	}
	if !n.ValidUntil.IsZero() {
		attrs = append(attrs, slog.Duration("remaining", n.Remaining))
	}
	if n.Kind == NoticeLost {
		attrs = append(attrs, slog.Duration("remaining_ttl", n.RemainingTTL))
	}
	return attrs
}

// LossReason classifies a loss reason (lease.Event.Err of an lease.EventLost, the
// argument of Options.OnLost) for metrics and dashboards: "lost" (the
// coordinator said so), "expired", "timeout", "external", "illegal_ttl",
// "closed", or "other".
func LossReason(err error) string {
	switch {
	case errors.Is(err, lease.ErrLost):
		return "lost"
	case errors.Is(err, lease.ErrExpired):
		return "expired"
	case errors.Is(err, lease.ErrTimeout):
		return "timeout"
	case errors.Is(err, lease.ErrExternal):
		return "external"
	case errors.Is(err, lease.ErrIllegalTTL):
		return "illegal_ttl"
	case errors.Is(err, lease.ErrClosed):
		return "closed"
	}
	return "other"
}

// Notifier turns one manager's [Event] values into [Notice] values. It
// keeps the attempt counters, so give each manager its own and feed it
// every event, in order (the manager calls Options.Events one event at a
// time). The zero value is ready to use.
type Notifier struct {
	renewals int  // renew requests sent in this lease period
	acquires int  // acquisition attempts since the last lease or loss
	reclaim  bool // a reclaim started this attempt: an acquire may follow
}

// Notice returns the notice e amounts to, if any: start and end records of
// acquisitions and failed renewals carry no notice of their own (a failure
// is reported by the retry or loss that follows it).
func (nf *Notifier) Notice(e lease.Event) (Notice, bool) {
	now := time.Now()
	n := Notice{Time: now, Strategy: e.Strategy, Source: e.Source, MachineID: e.MachineID}
	switch {
	case e.Kind == lease.EventStart && e.Op == lease.OpRenew:
		nf.renewals++
		n.Kind, n.Attempt = NoticeKeepAliveFired, nf.renewals
		n.ValidUntil = e.ValidUntil
	case e.Kind == lease.EventEnd && e.Op == lease.OpRenew && e.Err == nil:
		n.Kind, n.Attempt, n.Result = NoticeKeepAliveSucceeded, max(nf.renewals, 1), e.Result
		n.GrantedTTL, n.ValidUntil = e.GrantedTTL, e.ValidUntil
		nf.renewals = 0
	case e.Kind == lease.EventRetry && e.Op == lease.OpRenew:
		n.Kind, n.Attempt, n.Delay, n.Reason, n.Result = NoticeKeepAliveFailed, e.Attempt, e.Delay, e.Err, e.Result
		n.ValidUntil = e.ValidUntil
	case e.Kind == lease.EventStart && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim):
		// A reclaim and the acquire that may follow it are one attempt.
		if !nf.reclaim || e.Op == lease.OpReclaim {
			nf.acquires++
		}
		nf.reclaim = e.Op == lease.OpReclaim
		return Notice{}, false
	case e.Kind == lease.EventEnd && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim) && e.Err == nil:
		n.Kind, n.Attempt, n.Result = NoticeAcquired, max(nf.acquires, 1), e.Result
		n.GrantedTTL, n.ValidUntil = e.GrantedTTL, e.ValidUntil
		nf.acquires, nf.renewals, nf.reclaim = 0, 0, false
	case e.Kind == lease.EventRetry && e.Op != lease.OpRenew:
		n.Kind, n.Attempt, n.Delay, n.Reason = NoticeAcquireRetry, e.Attempt, e.Delay, e.Err
		if e.Err != nil {
			n.Result = e.Result
		}
		nf.reclaim = false
	case e.Kind == lease.EventLost:
		n.Kind, n.Reason, n.Result, n.RemainingTTL = NoticeLost, e.Err, LossReason(e.Err), e.RemainingTTL
		nf.renewals, nf.acquires, nf.reclaim = 0, 0, false
	case e.Kind == lease.EventEnd && e.Op == lease.OpRelease:
		n.Kind, n.Reason, n.Result = NoticeReleased, e.Err, e.Result
	default:
		return Notice{}, false
	}
	if !n.ValidUntil.IsZero() {
		n.Remaining = max(n.ValidUntil.Sub(now), 0)
	}
	return n, true
}
