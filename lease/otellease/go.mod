module github.com/once-go/once/lease/otellease

go 1.26.0

require (
	github.com/once-go/once v0.1.0
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/sdk/metric v1.47.0
)
