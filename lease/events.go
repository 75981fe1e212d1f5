package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/once-go/once/lease/driver"
)

// EventKind says what an [Event] reports.
type EventKind string

// Event kinds.
const (
	// EventStart: an operation begins.
	EventStart EventKind = "start"
	// EventEnd: an operation ended; Err is nil when it succeeded.
	EventEnd EventKind = "end"
	// EventRetry: a failed operation (Err) will be tried again after
	// Delay.
	EventRetry EventKind = "retry"
	// EventLost: the lease is no longer trusted; Err is the loss reason
	// (see [Manager.Err]). The factories were disabled before the event.
	EventLost EventKind = "lost"
	// EventPool: FreeIDs machine IDs are free, counted after each acquire
	// and renewal when the strategy can list the IDs held; Err when the
	// count failed.
	EventPool EventKind = "pool"
	// EventKeyMismatch: a live holder in the pool records another key
	// fingerprint than this manager's factories (see
	// driver.Slot.Fingerprint): the two cannot read each other's masked
	// IDs. Checked with each count of free IDs (EventPool); MachineID is
	// the first such holder's, Err (matching [ErrConfig]) names the
	// holders. A holder that recorded no fingerprint (the Elixir library,
	// an older version, a factory without a key) never counts. See
	// Options.RefuseKeyMismatch.
	EventKeyMismatch EventKind = "key_mismatch"
)

// Op is the lease operation an [Event] is about.
type Op string

// Operations.
const (
	OpAcquire Op = "acquire" // take a free machine ID
	OpReclaim Op = "reclaim" // take back the lease recorded in Options.StateFile
	OpRenew   Op = "renew"
	OpRelease Op = "release"
)

// Event describes one step of the lease lifecycle, for logs, metrics and
// traces (see Options.Events). Fields that do not apply to a kind are
// zero.
//
// A new lease is the EventEnd of an OpAcquire or OpReclaim with a nil
// Err. It is delivered only once the lease is installed: the factories
// have been activated with its machine ID and [Manager.MachineID] reports
// it, so a consumer may print the ID or start generating when it sees
// that event. A lease the strategy granted but the manager cannot use
// (illegal TTL, granted too late, activation failed, manager stopping)
// ends with that reason instead, and its release follows.
type Event struct {
	Kind EventKind
	// Op is the operation of an EventStart, EventEnd or EventRetry.
	Op Op
	// MachineID is the machine ID concerned, -1 when none (an acquire not
	// yet answered); for an EventKeyMismatch, another holder's.
	MachineID int
	// Err is the failure of an EventEnd, the reason of an EventRetry, the
	// loss reason of an EventLost, why an EventPool's count failed, or
	// which holders an EventKeyMismatch found.
	// The coordinator's errors match the sentinels of package driver
	// (driver.ErrRetry, driver.ErrExhausted, ...). An operation cut short
	// because the manager stopped or the lease was lost meanwhile ends
	// with an Err that also matches why: [ErrClosed] (Close), the loss
	// reason, or the error of Start's context.
	Err error
	// Duration of the operation (EventEnd), or of the count (EventPool).
	Duration time.Duration
	// TTL is the lifetime the coordinator granted, for the EventEnd of a
	// successful acquire, reclaim or renew; for an EventLost, how much of
	// it was left (0 when none). Counted from when the request that
	// obtained it was sent; the manager trusts the lease until 10s
	// before it runs out.
	TTL time.Duration
	// FreeIDs of an EventPool: how many of the machine IDs the strategy
	// may take (all 512, or the range of a strategy restricted to one,
	// [driver.Ranged]) the coordinator does not list as held (this
	// manager's own is held).
	FreeIDs int
	// Delay of an EventRetry: the pause before the next attempt.
	Delay time.Duration
}

// origin says why an operation ran (logged as "source").
type origin string

const (
	sourceInitial   origin = "initial"   // in Start
	sourceScheduled origin = "scheduled" // renewal on schedule, and its retries
	sourceReacquire origin = "reacquire" // after a loss
	sourceShutdown  origin = "shutdown"  // Close, or a Start whose context ended as it installed the lease
)

// record is an event with what the manager's log shows beside it.
type record struct {
	Event
	source  origin
	attempt int // of an EventRetry: 1, 2, ...
	// result classifies the outcome (see resultOf); "low" for an EventPool
	// below Options.LowFreeIDs. Empty: resultOf(Err).
	result string
}

// class is r.result, or the class of r.Err when it is empty.
func (r record) class() string {
	if r.result == "" {
		return resultOf(r.Err)
	}
	return r.result
}

// resultOf classifies an error for the log's "result": "ok" when nil,
// else "lost", "expired", "timeout", "external", "illegal_ttl", "retry",
// "exhausted", "conflict", "config", "canceled" (the manager's own
// shutdown) or "error".
func resultOf(err error) string {
	if err == nil {
		return "ok"
	}
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
	return "error"
}

// emit logs r at its level (eventLevel) and hands its event to the Events
// hook.
func (m *Manager) emit(r record) {
	level, msg := eventLevel(r)
	m.emitLog(r, level, msg)
}

// emitLog logs r at level with msg and hands its event to the Events hook.
func (m *Manager) emitLog(r record, level slog.Level, msg string) {
	e := r.Event
	if log := m.o.Logger; log.Enabled(context.Background(), level) {
		attrs := []slog.Attr{slog.String("strategy", m.name), slog.String("source", string(r.source))}
		if e.MachineID >= 0 {
			attrs = append(attrs, slog.Int("machine_id", e.MachineID))
		}
		switch e.Kind {
		case EventEnd:
			attrs = append(attrs, slog.String("result", r.class()), slog.Duration("duration", e.Duration))
			if e.TTL > 0 {
				attrs = append(attrs, slog.Duration("granted_ttl", e.TTL))
			}
			if str, ok := m.s.(fmt.Stringer); ok && e.Err == nil && (e.Op == OpAcquire || e.Op == OpReclaim) {
				// Where the lease is held, as the strategy describes
				// itself (sqllease: the table, with its schema).
				attrs = append(attrs, slog.String("coordinator", str.String()))
			}
		case EventRetry:
			attrs = append(attrs, slog.String("operation", string(e.Op)), slog.Int("attempt", r.attempt), slog.Duration("delay", e.Delay))
		case EventLost:
			attrs = append(attrs, slog.Duration("remaining_ttl", e.TTL))
		case EventPool:
			if e.Err == nil {
				attrs = append(attrs, slog.Int("free_ids", e.FreeIDs))
			}
			attrs = append(attrs, slog.Int("low_free_ids", m.o.LowFreeIDs))
		case EventKeyMismatch:
			attrs = append(attrs, slog.String("key_fingerprint", m.fp))
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
//   - an operation canceled by the manager's own shutdown (result
//     "canceled"; a release cut short by Close's context still warns: the
//     lease may stay held until it expires);
//   - a failed acquire or reclaim whose class is transient (exhausted,
//     conflict, retry, timeout): the retry record that follows reports it
//     (acquire picks its level), or Start's error does;
//   - a reclaim the coordinator refuses (the lease in the state file was
//     taken over): a new lease is acquired at once.
func eventLevel(r record) (slog.Level, string) {
	e, op := r.Event, string(r.Op)
	switch e.Kind {
	case EventStart:
		return slog.LevelDebug, "lease " + op + " start"
	case EventRetry:
		return slog.LevelWarn, "lease " + op + " retry"
	case EventLost:
		return slog.LevelError, "lease lost"
	case EventPool:
		switch {
		case r.class() == "low":
			return slog.LevelWarn, "lease pool low on free machine IDs: when none is left, a new process cannot start"
		case e.Err != nil:
			return slog.LevelInfo, "lease pool not counted"
		}
		return slog.LevelDebug, "lease pool counted"
	case EventKeyMismatch:
		return slog.LevelWarn, "lease pool has holders with another base key: they cannot read this process's masked IDs, nor it theirs"
	}
	switch {
	case e.Err == nil && e.Op == OpRenew:
		return slog.LevelDebug, "lease renewed"
	case e.Err == nil:
		return slog.LevelInfo, "lease " + op + " done"
	case e.Op == OpRelease:
		return slog.LevelWarn, "lease release failed"
	case r.class() == "canceled":
		return slog.LevelDebug, "lease " + op + " canceled by shutdown"
	}
	if e.Op == OpAcquire || e.Op == OpReclaim {
		switch r.class() {
		case "exhausted", "conflict", "retry", "timeout":
			return slog.LevelDebug, "lease " + op + " failed"
		case "lost":
			return slog.LevelInfo, "lease " + op + " failed"
		}
	}
	return slog.LevelWarn, "lease " + op + " failed"
}
