package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/once-go/once/lease/driver"
)

// Event kinds (Event.Kind).
const (
	EventStart = "start" // an operation begins
	EventEnd   = "end"   // an operation ended: Result, Duration, GrantedTTL (acquire, reclaim: see Event)
	EventRetry = "retry" // a failed operation will be retried after Delay
	EventLost  = "lost"  // the lease is no longer trusted: Err is the reason
	// EventPool reports how many machine IDs are free (FreeIDs), after
	// each acquire and renewal, when the strategy implements [Lister].
	// Result "low" (logged at WARN) when fewer than Options.LowFreeIDs are
	// free; Err when the count failed.
	EventPool = "pool"
)

// Operations (Event.Op).
const (
	OpAcquire = "acquire"
	OpReclaim = "reclaim" // acquire by taking back the lease in Options.StateFile
	OpRenew   = "renew"
	OpRelease = "release"
)

// Sources (Event.Source): why an operation ran.
const (
	SourceInitial   = "initial"   // in Start
	SourceScheduled = "scheduled" // renewal on schedule, and its retries
	SourceReacquire = "reacquire" // after a loss
	SourceShutdown  = "shutdown"  // Close, or a Start whose context ended as it installed the lease
)

// Event describes one step of the lease lifecycle, for metrics and traces.
// Fields that do not apply to a kind are zero.
//
// A successful acquire or reclaim (EventEnd, Result "ok") is delivered only
// once the lease is installed: the factories have been activated with its
// machine ID and [Manager.MachineID] reports it, so a consumer may print
// the ID or start generating when it sees that event. A lease the strategy
// granted but the manager cannot use (illegal TTL, granted too late,
// activation failed, manager stopping) ends with that reason instead, and
// its release follows. An operation that failed because the manager is
// shutting down ends with Result "canceled".
type Event struct {
	Kind     string // EventStart, EventEnd, EventRetry, EventLost
	Op       string // OpAcquire, OpReclaim, OpRenew, OpRelease; empty for EventLost
	Strategy string
	Source   string // SourceInitial, SourceScheduled, SourceReacquire, SourceShutdown
	// MachineID is the machine ID concerned, -1 when none (an acquire not
	// yet answered).
	MachineID int
	// Result classifies the outcome: "ok" for an EventEnd that succeeded
	// (and an EventPool counted); "low" for an EventPool below
	// Options.LowFreeIDs; otherwise the class of Err: "lost", "expired",
	// "timeout", "external", "illegal_ttl", "retry", "exhausted",
	// "conflict", "config", "canceled" (the manager's own shutdown) or
	// "error".
	Result string
	// Err is the failure of an EventEnd, the reason of an EventRetry or of
	// an EventLost.
	Err error
	// Duration of the operation (EventEnd), or of the count (EventPool).
	Duration time.Duration
	// FreeIDs of an EventPool: how many of the 512 machine IDs the
	// coordinator does not list as held (this manager's own is held).
	FreeIDs int
	// GrantedTTL of a successful acquire, reclaim or renew (EventEnd).
	GrantedTTL time.Duration
	// Coordinator of a successful acquire or reclaim (EventEnd): where the
	// lease is held, as the strategy describes itself when it implements
	// fmt.Stringer (sqllease: "postgres table app.once_leases", the schema
	// the table resolved to); "" otherwise.
	Coordinator string
	// Attempt (1, 2, ...) and Delay of an EventRetry.
	Attempt int
	Delay   time.Duration
	// RemainingTTL of an EventLost: how much of the granted TTL was left,
	// counted from the request that obtained it; 0 when none.
	RemainingTTL time.Duration
	// ValidUntil is the end of the safe window (local monotonic clock) of
	// the lease the event is about, zero when there is none: for every
	// renew event the deadline the factories run on while the renewal is
	// in flight or retried; for a successful acquire, reclaim or renew
	// (EventEnd) the deadline that lease grants, counted from when the
	// request was sent (Event.Duration before the event, to within the
	// microseconds between the reply and the event).
	ValidUntil time.Time
}

// resultOf classifies an error for Event.Result.
func resultOf(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{ErrLost, "lost"}, {ErrExpired, "expired"}, {ErrIllegalTTL, "illegal_ttl"}, {ErrExternal, "external"},
		{ErrTimeout, "timeout"}, {driver.ErrExhausted, "exhausted"}, {driver.ErrConflict, "conflict"}, {ErrConfig, "config"},
		{driver.ErrRetry, "retry"}, {ErrClosed, "canceled"}, {context.Canceled, "canceled"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	if err == nil {
		return "ok"
	}
	return "error"
}

// emit logs e at its level (eventLevel) and hands it to the Events hook.
func (m *Manager) emit(e Event) {
	level, msg := eventLevel(e)
	m.emitLog(e, level, msg)
}

// emitLog logs e at level with msg and hands it to the Events hook.
func (m *Manager) emitLog(e Event, level slog.Level, msg string) {
	e.Strategy = m.name
	if e.Result == "" && e.Err != nil {
		e.Result = resultOf(e.Err)
	}
	if str, ok := m.s.(fmt.Stringer); ok && e.Kind == EventEnd && e.Err == nil && (e.Op == OpAcquire || e.Op == OpReclaim) {
		e.Coordinator = str.String()
	}
	if log := m.o.Logger; log.Enabled(context.Background(), level) {
		attrs := []slog.Attr{slog.String("strategy", e.Strategy), slog.String("source", string(e.Source))}
		if e.MachineID >= 0 {
			attrs = append(attrs, slog.Int("machine_id", e.MachineID))
		}
		switch e.Kind {
		case EventEnd:
			attrs = append(attrs, slog.String("result", e.Result), slog.Duration("duration", e.Duration))
			if e.GrantedTTL > 0 {
				attrs = append(attrs, slog.Duration("granted_ttl", e.GrantedTTL))
			}
			if e.Coordinator != "" {
				attrs = append(attrs, slog.String("coordinator", e.Coordinator))
			}
		case EventRetry:
			attrs = append(attrs, slog.String("operation", string(e.Op)), slog.Int("attempt", e.Attempt), slog.Duration("delay", e.Delay))
		case EventLost:
			attrs = append(attrs, slog.Duration("remaining_ttl", e.RemainingTTL))
		case EventPool:
			if e.Err == nil {
				attrs = append(attrs, slog.Int("free_ids", e.FreeIDs))
			}
			attrs = append(attrs, slog.Int("low_free_ids", m.o.LowFreeIDs))
		}
		if e.Err != nil {
			attrs = append(attrs, slog.String("reason", e.Err.Error()))
		}
		log.LogAttrs(context.Background(), level, msg, attrs...)
	}
	if m.o.Events != nil {
		m.o.Events(e)
	}
}

// eventLevel picks the log level and message of an event: losses are
// errors, failures warn, routine renewals are debug. Not failures, and so
// below WARN:
//   - an operation canceled by the manager's own shutdown (Result
//     "canceled"; a release cut short by Close's context still warns: the
//     lease may stay held until it expires);
//   - a failed acquire or reclaim whose class is transient (exhausted,
//     conflict, retry, timeout): the retry record that follows reports it
//     (acquire picks its level), or Start's error does;
//   - a reclaim the coordinator refuses (the lease in the state file was
//     taken over): a new lease is acquired at once.
func eventLevel(e Event) (slog.Level, string) {
	op := e.Op
	switch e.Kind {
	case EventStart:
		return slog.LevelDebug, "lease " + op + " start"
	case EventRetry:
		return slog.LevelWarn, "lease " + op + " retry"
	case EventLost:
		return slog.LevelError, "lease lost"
	case EventPool:
		switch {
		case e.Result == "low":
			return slog.LevelWarn, "lease pool low on free machine IDs: when none is left, a new process cannot start"
		case e.Err != nil:
			return slog.LevelInfo, "lease pool not counted"
		}
		return slog.LevelDebug, "lease pool counted"
	}
	switch {
	case e.Err == nil && e.Op == OpRenew:
		return slog.LevelDebug, "lease renewed"
	case e.Err == nil:
		return slog.LevelInfo, "lease " + op + " done"
	case e.Op == OpRelease:
		return slog.LevelWarn, "lease release failed"
	case e.Result == "canceled":
		return slog.LevelDebug, "lease " + op + " canceled by shutdown"
	}
	if e.Op == OpAcquire || e.Op == OpReclaim {
		switch e.Result {
		case "exhausted", "conflict", "retry", "timeout":
			return slog.LevelDebug, "lease " + op + " failed"
		case "lost":
			return slog.LevelInfo, "lease " + op + " failed"
		}
	}
	return slog.LevelWarn, "lease " + op + " failed"
}
