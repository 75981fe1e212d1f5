package otellease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// ScopeName is the instrumentation scope of the bridge's meter.
const ScopeName = "github.com/once-go/once/lease/otellease"

// Metric names.
const (
	MetricHeld         = "once.lease.held"
	MetricRenewals     = "once.lease.renewals"
	MetricRetries      = "once.lease.retries"
	MetricLosses       = "once.lease.losses"
	MetricTimeToExpiry = "once.lease.time_to_expiry"
	MetricFreeIDs      = "once.lease.free_ids"
)

// Attribute keys.
const (
	AttrStrategy  = attribute.Key("strategy")
	AttrMachineID = attribute.Key("machine_id")
	AttrResult    = attribute.Key("result")
	AttrOperation = attribute.Key("operation")
	AttrReason    = attribute.Key("reason")
)

// Bridge records one lease manager's events as OpenTelemetry metrics.
// Create it with [New], install [Bridge.Hook] as (or in) the manager's
// Options.Events, and [Bridge.Close] it when the manager is closed.
type Bridge struct {
	attrs    []attribute.KeyValue
	renewals metric.Int64Counter
	retries  metric.Int64Counter
	losses   metric.Int64Counter
	reg      metric.Registration

	mu         sync.Mutex
	held       bool
	machineID  int
	validUntil time.Time
	freeIDs    int // from the last EventPool counted; -1: none yet
}

// New creates the bridge's instruments on mp (one meter, [ScopeName]).
// attrs are added to every measurement: name the strategy with
// AttrStrategy (AttrStrategy.String(strategy.Name())), give each manager
// of a process its own Bridge, and tell them apart with attrs if they
// share a strategy.
func New(mp metric.MeterProvider, attrs ...attribute.KeyValue) (*Bridge, error) {
	if mp == nil {
		return nil, fmt.Errorf("otellease: nil MeterProvider")
	}
	m := mp.Meter(ScopeName)
	b := &Bridge{attrs: attrs, machineID: -1, freeIDs: -1}
	var err error
	if b.renewals, err = m.Int64Counter(MetricRenewals, metric.WithUnit("{renewal}"),
		metric.WithDescription("Lease renewal calls finished, by result.")); err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	if b.retries, err = m.Int64Counter(MetricRetries, metric.WithUnit("{retry}"),
		metric.WithDescription("Pauses before another lease renewal or acquisition attempt, by operation.")); err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	if b.losses, err = m.Int64Counter(MetricLosses, metric.WithUnit("{loss}"),
		metric.WithDescription("Leases lost (factories disabled), by reason.")); err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	held, err := m.Int64ObservableGauge(MetricHeld, metric.WithUnit("{lease}"),
		metric.WithDescription("1 while a machine-ID lease is held, with its machine ID; 0 when none is."))
	if err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	tte, err := m.Float64ObservableGauge(MetricTimeToExpiry, metric.WithUnit("s"),
		metric.WithDescription("Time until the lease's local safe window ends and the factories stop, unless renewed."))
	if err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	free, err := m.Int64ObservableGauge(MetricFreeIDs, metric.WithUnit("{id}"),
		metric.WithDescription("Machine IDs the coordinator does not list as held, at the last acquire or renewal (strategies that list their leases only)."))
	if err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	b.reg, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		b.mu.Lock()
		isHeld, id, until, freeIDs := b.held, b.machineID, b.validUntil, b.freeIDs
		b.mu.Unlock()
		attrs := b.with()
		if freeIDs >= 0 {
			o.ObserveInt64(free, int64(freeIDs), metric.WithAttributes(attrs...))
		}
		if !isHeld {
			o.ObserveInt64(held, 0, metric.WithAttributes(attrs...))
			o.ObserveFloat64(tte, 0, metric.WithAttributes(attrs...))
			return nil
		}
		attrs = append(attrs, AttrMachineID.Int(id))
		o.ObserveInt64(held, 1, metric.WithAttributes(attrs...))
		o.ObserveFloat64(tte, max(time.Until(until), 0).Seconds(), metric.WithAttributes(attrs...))
		return nil
	}, held, tte, free)
	if err != nil {
		return nil, fmt.Errorf("otellease: %w", err)
	}
	return b, nil
}

// with returns the bridge's attributes followed by kv.
func (b *Bridge) with(kv ...attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(b.attrs)+len(kv)+1)
	return append(append(out, b.attrs...), kv...)
}

// Hook records e; use it as lease.Options.Events, or call it from your
// own hook. It never blocks for long.
func (b *Bridge) Hook(e lease.Event) {
	ctx := context.Background()
	switch {
	case e.Kind == lease.EventEnd && e.Op == lease.OpRenew:
		b.renewals.Add(ctx, 1, metric.WithAttributes(b.with(AttrResult.String(result(e.Err)))...))
	case e.Kind == lease.EventRetry:
		b.retries.Add(ctx, 1, metric.WithAttributes(b.with(AttrOperation.String(string(e.Op)))...))
	case e.Kind == lease.EventLost:
		b.losses.Add(ctx, 1, metric.WithAttributes(b.with(AttrReason.String(lossReason(e.Err)))...))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case e.Kind == lease.EventPool && e.Err == nil:
		b.freeIDs = e.FreeIDs
	case e.Kind == lease.EventEnd && e.Err == nil && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim):
		b.held, b.machineID, b.validUntil = true, e.MachineID, validUntil(e)
	case e.Kind == lease.EventEnd && e.Err == nil && e.Op == lease.OpRenew:
		if b.held && e.MachineID == b.machineID {
			b.validUntil = validUntil(e)
		}
	case e.Kind == lease.EventLost, e.Kind == lease.EventEnd && e.Op == lease.OpRelease:
		b.held, b.machineID, b.validUntil = false, -1, time.Time{}
	}
}

// validUntil is the end of the safe window that the successful acquire,
// reclaim or renewal e grants: the manager trusts a lease for its TTL
// minus driver.SafetyMargin, counted from when the request was sent
// (e.Duration before the event).
func validUntil(e lease.Event) time.Time {
	return time.Now().Add(e.TTL - e.Duration - driver.SafetyMargin)
}

// result classifies a renewal's error for the result attribute: "ok"
// (nil), "canceled" (the manager stopped: lease.ErrClosed or
// context.Canceled), "lost", "expired", "illegal_ttl", "external",
// "timeout", "exhausted", "conflict", "config", "retry", or "error".
func result(err error) string {
	if err == nil {
		return "ok"
	}
	for _, c := range []struct {
		err  error
		name string
	}{
		{lease.ErrClosed, "canceled"}, {context.Canceled, "canceled"},
		{lease.ErrLost, "lost"}, {lease.ErrExpired, "expired"}, {lease.ErrIllegalTTL, "illegal_ttl"},
		{lease.ErrExternal, "external"}, {lease.ErrTimeout, "timeout"}, {driver.ErrExhausted, "exhausted"},
		{driver.ErrConflict, "conflict"}, {lease.ErrConfig, "config"}, {driver.ErrRetry, "retry"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "error"
}

// lossReason classifies a loss for the reason attribute: "lost" (the
// coordinator said so), "expired", "timeout", "external", "illegal_ttl",
// "closed", or "other".
func lossReason(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{lease.ErrLost, "lost"}, {lease.ErrExpired, "expired"}, {lease.ErrTimeout, "timeout"},
		{lease.ErrExternal, "external"}, {lease.ErrIllegalTTL, "illegal_ttl"}, {lease.ErrClosed, "closed"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "other"
}

// Close unregisters the gauges' callback: they are no longer reported.
// The counters keep their values. Calling it again does nothing.
func (b *Bridge) Close() error {
	b.mu.Lock()
	reg := b.reg
	b.reg = nil
	b.mu.Unlock()
	if reg == nil {
		return nil
	}
	return reg.Unregister()
}
