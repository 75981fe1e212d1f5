package otellease_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/lease/otellease"
	"github.com/once-go/once/nonce"
)

// The bridge's hook goes into the manager's options; the metrics reach
// whatever reader or exporter the MeterProvider has (here a ManualReader).
func Example() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	bridge, err := otellease.New(mp)
	if err != nil {
		panic(err)
	}
	defer bridge.Close()

	f, _ := nonce.New(nonce.Config{})
	ctx := context.Background()
	m, err := lease.Start(ctx, leasetest.NewMemory(512), lease.Options{
		Factories: []lease.Factory{f},
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events:    bridge.Hook, // or: func(e lease.Event) { feed.Hook(e); bridge.Hook(e) }
	})
	if err != nil {
		panic(err)
	}
	defer m.Close(ctx)

	var rm metricdata.ResourceMetrics
	reader.Collect(ctx, &rm)
	for _, met := range rm.ScopeMetrics[0].Metrics {
		if g, ok := met.Data.(metricdata.Gauge[int64]); ok {
			p := g.DataPoints[0]
			if id, ok := p.Attributes.Value(otellease.AttrMachineID); ok {
				fmt.Println(met.Name, p.Value, "machine_id", id.AsInt64())
			} else {
				fmt.Println(met.Name, p.Value)
			}
		}
	}
	// Output:
	// once.lease.held 1 machine_id 0
	// once.lease.free_ids 511
}
