package envlease

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
)

// Strategy reads the machine ID from an environment variable.
type Strategy struct {
	variable string
	offset   int
}

var _ lease.Strategy = (*Strategy)(nil)

// New returns a strategy whose machine ID is the trailing decimal digits of
// the environment variable named variable, plus offset. The variable is
// read on every Acquire.
func New(variable string, offset int) *Strategy {
	return &Strategy{variable: variable, offset: offset}
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
	if !ok {
		return 0, configError("environment variable %s is not set", s.variable)
	}
	i := len(v)
	for i > 0 && v[i-1] >= '0' && v[i-1] <= '9' {
		i--
	}
	if i == len(v) {
		return 0, configError("%s=%s does not end in decimal digits", s.variable, quote(v))
	}
	n, err := strconv.Atoi(v[i:])
	if err != nil || n > nonce.MaxMachineID || n+s.offset < 0 || n+s.offset > nonce.MaxMachineID {
		return 0, configError("%s=%s: ordinal %s plus offset %d is outside 0..%d", s.variable, quote(v), clip(v[i:]), s.offset, nonce.MaxMachineID)
	}
	return n + s.offset, nil
}

// Acquire returns the machine ID the variable designates, for d.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (lease.Lease, error) {
	if err := ctx.Err(); err != nil {
		return lease.Lease{}, fmt.Errorf("envlease: %w: %w", lease.ErrRetry, err)
	}
	id, err := s.MachineID()
	if err != nil {
		return lease.Lease{}, err
	}
	return lease.Lease{MachineID: id, Token: "env:" + s.variable, TTL: d}, nil
}

// Renew returns l for d: nothing can take the ID away.
func (s *Strategy) Renew(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
	if err := ctx.Err(); err != nil {
		return lease.Lease{}, fmt.Errorf("envlease: %w: %w", lease.ErrRetry, err)
	}
	l.TTL = d
	return l, nil
}

// Release does nothing.
func (s *Strategy) Release(context.Context, lease.Lease) error { return nil }

func configError(format string, args ...any) error {
	return fmt.Errorf("envlease: "+format+" (%w)", append(args, lease.ErrConfig)...)
}

// quote quotes at most 40 bytes of s.
func quote(s string) string { return strconv.Quote(clip(s)) }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
