package envlease

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// Strategy reads the machine ID from an environment variable.
type Strategy struct {
	variable string
	offset   int
	index    bool // the whole value is a pod index (PodIndex)
}

// PodIndexLabel is the label the StatefulSet controller puts on each pod it
// creates (Kubernetes 1.28 and later): the pod's ordinal index, in decimal.
const PodIndexLabel = "apps.kubernetes.io/pod-index"

var _ driver.Strategy = (*Strategy)(nil)

// New returns a strategy whose machine ID is the trailing decimal digits of
// the environment variable named variable, plus offset. The variable is
// read on every Acquire.
func New(variable string, offset int) *Strategy {
	return &Strategy{variable: variable, offset: offset}
}

// PodIndex returns a strategy whose machine ID is a StatefulSet pod's
// index, plus offset: the value of the environment variable named
// variable, which the Downward API fills from the pod's [PodIndexLabel]
// label:
//
//	env:
//	- name: POD_INDEX
//	  valueFrom:
//	    fieldRef: {fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}
//
// The whole value must be decimal digits. An empty value means the pod has
// no such label (a cluster before 1.28, or a pod no StatefulSet made):
// [driver.ErrConfig] says so, as it does for a missing variable. The
// variable is read on every Acquire.
func PodIndex(variable string, offset int) *Strategy {
	return &Strategy{variable: variable, offset: offset, index: true}
}

// Name returns "env".
func (s *Strategy) Name() string { return "env" }

// Deterministic returns true.
func (s *Strategy) Deterministic() bool { return true }

// MachineID reads the variable and returns the machine ID it designates.
func (s *Strategy) MachineID() (int, error) {
	if s.variable == "" {
		return 0, configError("no environment variable named")
	}
	v, ok := os.LookupEnv(s.variable)
	switch {
	case !ok && s.index:
		return 0, configError("environment variable %s is not set: fill it from the pod's %s label with the Downward API (fieldRef metadata.labels['%s'])",
			s.variable, PodIndexLabel, PodIndexLabel)
	case !ok:
		return 0, configError("environment variable %s is not set", s.variable)
	case s.index && v == "":
		return 0, configError("%s is empty: the pod has no %s label (StatefulSet pods have it from Kubernetes 1.28 on; on older clusters use envlease.New on the pod name)",
			s.variable, PodIndexLabel)
	}
	i := len(v)
	for i > 0 && v[i-1] >= '0' && v[i-1] <= '9' {
		i--
	}
	switch {
	case s.index && i != 0:
		return 0, configError("%s=%s is not a pod index (decimal digits)", s.variable, quote(v))
	case i == len(v):
		return 0, configError("%s=%s does not end in decimal digits", s.variable, quote(v))
	}
	n, err := strconv.Atoi(v[i:])
	if err != nil || n > nonce.MaxMachineID || n+s.offset < 0 || n+s.offset > nonce.MaxMachineID {
		return 0, configError("%s=%s: ordinal %s plus offset %d is outside 0..%d", s.variable, quote(v), clip(v[i:]), s.offset, nonce.MaxMachineID)
	}
	return n + s.offset, nil
}

// Acquire returns the machine ID the variable designates, for d.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	if err := ctx.Err(); err != nil {
		return driver.Lease{}, fmt.Errorf("envlease: %w: %w", driver.ErrRetry, err)
	}
	id, err := s.MachineID()
	if err != nil {
		return driver.Lease{}, err
	}
	return driver.Lease{MachineID: id, Token: "env:" + s.variable, TTL: d}, nil
}

// Renew returns l for d: nothing can take the ID away.
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	if err := ctx.Err(); err != nil {
		return driver.Lease{}, fmt.Errorf("envlease: %w: %w", driver.ErrRetry, err)
	}
	l.TTL = d
	return l, nil
}

// Release does nothing.
func (s *Strategy) Release(context.Context, driver.Lease) error { return nil }

func configError(format string, args ...any) error {
	return fmt.Errorf("envlease: "+format+" (%w)", append(args, driver.ErrConfig)...)
}

// quote quotes at most 40 bytes of s.
func quote(s string) string { return strconv.Quote(clip(s)) }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
