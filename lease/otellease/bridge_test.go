package otellease_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/lease/otellease"
	"github.com/once-go/once/nonce"
)

// collect reads every data point of the bridge's metrics from r as
// "name{k=v,...}" -> value (float64 for all).
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otellease.ScopeName {
			t.Errorf("scope %q", sm.Scope.Name)
		}
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				if !d.IsMonotonic {
					t.Errorf("%s is not monotonic", m.Name)
				}
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			default:
				t.Errorf("%s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	return out
}

func key(name string, set attribute.Set) string {
	var kv []string
	for _, a := range set.ToSlice() {
		kv = append(kv, string(a.Key)+"="+a.Value.String())
	}
	sort.Strings(kv)
	return name + "{" + strings.Join(kv, ",") + "}"
}

// checkMetrics compares got with want exactly (every data point).
func checkMetrics(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// scripted is leasetest.Memory whose next renewals can be made to fail.
type scripted struct {
	*leasetest.Memory
	mu    sync.Mutex
	fails int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	s.mu.Lock()
	fail := s.fails > 0
	if fail {
		s.fails--
	}
	s.mu.Unlock()
	if fail {
		return driver.Lease{}, fmt.Errorf("%w: connection reset (test)", driver.ErrRetry)
	}
	return s.Memory.Renew(ctx, l, d)
}

// TestBridge drives a manager through a start, a renewal that fails twice
// then succeeds, a loss and a new lease, and a shutdown, and checks every
// metric after each step.
func TestBridge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		s := &scripted{Memory: leasetest.NewMemory(512)}
		b, err := otellease.New(mp, attribute.String("service", "api"), otellease.AttrStrategy.String(s.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// The bubble's clock starts in 2000, before the default epoch.
		f, err := nonce.New(nonce.Config{Epoch: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu     sync.Mutex
			events []lease.Event
		)
		m, err := lease.Start(t.Context(), s, lease.Options{
			Factories: []*nonce.Factory{f},
			Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
			Events: func(e lease.Event) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
				b.Hook(e)
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		safe := (driver.DefaultLeaseDuration - driver.SafetyMargin).Seconds()
		renewAt := driver.DefaultRenewInterval - driver.SafetyMargin
		const svc = "service=api,strategy=scripted"
		checkMetrics(t, "after start", collect(t, reader), map[string]float64{
			"once.lease.held{machine_id=0," + svc + "}":           1,
			"once.lease.time_to_expiry{machine_id=0," + svc + "}": safe,
			"once.lease.free_ids{" + svc + "}":                    511,
		})

		// A renewal fails twice, then succeeds.
		s.mu.Lock()
		s.fails = 2
		s.mu.Unlock()
		time.Sleep(renewAt + 10*time.Second)
		synctest.Wait()
		var delays time.Duration
		mu.Lock()
		for _, e := range events {
			if e.Kind == lease.EventRetry {
				delays += e.Delay
			}
		}
		mu.Unlock()
		sinceRenewal := 10*time.Second - delays // the successful request was sent after both pauses
		checkMetrics(t, "after a renewal that failed twice", collect(t, reader), map[string]float64{
			"once.lease.held{machine_id=0," + svc + "}":           1,
			"once.lease.time_to_expiry{machine_id=0," + svc + "}": safe - sinceRenewal.Seconds(),
			"once.lease.renewals{result=retry," + svc + "}":       2,
			"once.lease.renewals{result=ok," + svc + "}":          1,
			"once.lease.retries{operation=renew," + svc + "}":     2,
			"once.lease.free_ids{" + svc + "}":                    511,
		})

		// Another holder takes the ID: the next renewal (renewAt after the
		// last one) is lost, and a new lease (ID 1) is acquired at once.
		s.Steal(0, time.Hour)
		time.Sleep(renewAt)
		synctest.Wait()
		checkMetrics(t, "after a loss and a new lease", collect(t, reader), map[string]float64{
			"once.lease.held{machine_id=1," + svc + "}":           1,
			"once.lease.time_to_expiry{machine_id=1," + svc + "}": safe - sinceRenewal.Seconds(),
			"once.lease.renewals{result=retry," + svc + "}":       2,
			"once.lease.renewals{result=ok," + svc + "}":          1,
			"once.lease.renewals{result=lost," + svc + "}":        1,
			"once.lease.retries{operation=renew," + svc + "}":     2,
			"once.lease.losses{reason=lost," + svc + "}":          1,
			"once.lease.free_ids{" + svc + "}":                    510, // 0 (the other holder) and 1
		})
		// Shutdown: nothing held.
		m.Close(context.Background())
		got := collect(t, reader)
		if got["once.lease.held{"+svc+"}"] != 0 || got["once.lease.time_to_expiry{"+svc+"}"] != 0 ||
			got["once.lease.held{machine_id=1,"+svc+"}"] != 0 {
			t.Errorf("after Close: %v", got)
		}
		if _, ok := got["once.lease.held{"+svc+"}"]; !ok {
			t.Errorf("no held=0 point after Close: %v", got)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		got = collect(t, reader)
		for k := range got {
			if strings.HasPrefix(k, otellease.MetricHeld) || strings.HasPrefix(k, otellease.MetricTimeToExpiry) || strings.HasPrefix(k, otellease.MetricFreeIDs) {
				t.Errorf("gauge reported after Bridge.Close: %s", k)
			}
		}
	})
}

// TestLossReasons: losses are counted by reason; retries by operation,
// renewals by result.
func TestLossReasons(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	b, err := otellease.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), otellease.AttrStrategy.String("s"))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{lease.ErrLost, lease.ErrExpired, lease.ErrExpired, lease.ErrTimeout, lease.ErrExternal,
		fmt.Errorf("x: %w", lease.ErrIllegalTTL), errors.New("odd")} {
		b.Hook(lease.Event{Kind: lease.EventLost, MachineID: 3, Err: err})
	}
	b.Hook(lease.Event{Kind: lease.EventRetry, Op: lease.OpAcquire, MachineID: -1, Delay: time.Second})
	b.Hook(lease.Event{Kind: lease.EventEnd, Op: lease.OpRenew, MachineID: 3, Err: lease.ErrTimeout})
	b.Hook(lease.Event{Kind: lease.EventEnd, Op: lease.OpRenew, MachineID: 3, Err: fmt.Errorf("%w: %w", lease.ErrClosed, driver.ErrRetry)})
	got := collect(t, reader)
	checkMetrics(t, "losses", got, map[string]float64{
		"once.lease.held{strategy=s}":                      1 * 0,
		"once.lease.time_to_expiry{strategy=s}":            0,
		"once.lease.losses{reason=lost,strategy=s}":        1,
		"once.lease.losses{reason=expired,strategy=s}":     2,
		"once.lease.losses{reason=timeout,strategy=s}":     1,
		"once.lease.losses{reason=external,strategy=s}":    1,
		"once.lease.losses{reason=illegal_ttl,strategy=s}": 1,
		"once.lease.losses{reason=other,strategy=s}":       1,
		"once.lease.retries{operation=acquire,strategy=s}": 1,
		"once.lease.renewals{result=timeout,strategy=s}":   1,
		"once.lease.renewals{result=canceled,strategy=s}":  1,
	})
}

func TestNewNil(t *testing.T) {
	if _, err := otellease.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}

// TestHookConcurrentWithCollect exercises the hook and collections at
// once for the race detector.
func TestHookConcurrentWithCollect(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	b, err := otellease.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), otellease.AttrStrategy.String("s"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			b.Hook(lease.Event{Kind: lease.EventEnd, Op: lease.OpAcquire, MachineID: i % 512, TTL: time.Minute})
			b.Hook(lease.Event{Kind: lease.EventEnd, Op: lease.OpRenew, MachineID: i % 512, TTL: time.Minute})
		}
	}()
	for range 50 {
		collect(t, reader)
	}
	<-done
	if got := collect(t, reader)["once.lease.renewals{result=ok,strategy=s}"]; got != 1000 {
		t.Errorf("renewals %v, want 1000", got)
	}
}
