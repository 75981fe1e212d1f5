package guardlease_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/nonce"
)

// deadCoordinator is a Redis strategy on a port nobody listens on.
func deadCoordinator(t *testing.T) *redislease.Strategy {
	c := redis.NewClient(&redis.Options{Addr: testenv.DeadAddr(t), MaxRetries: -1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	s, err := redislease.New(c, redislease.Options{Mode: redislease.ModeKey})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNewRejects: New refuses what cannot guard anything, with ErrConfig.
func TestNewRejects(t *testing.T) {
	coord := deadCoordinator(t)
	fixed := envlease.New("POD_NAME", 0)
	cases := []struct {
		name  string
		fixed driver.Strategy
		coord guardlease.Coordinator
	}{
		{"nil fixed", nil, coord},
		{"nil coordinator", fixed, nil},
		{"typed nil coordinator", fixed, (*redislease.Strategy)(nil)},
		{"dynamic fixed strategy", leasetest.NewMemory(512), coord},
		{"deterministic coordinator", fixed, deterministic{coord}},
	}
	for _, c := range cases {
		_, err := guardlease.New(c.fixed, c.coord, "")
		if !errors.Is(err, driver.ErrConfig) || !strings.HasPrefix(err.Error(), "guardlease: ") {
			t.Errorf("%s: %v, want a guardlease: ... driver.ErrConfig", c.name, err)
		}
	}
	s, err := guardlease.New(fixed, coord, "")
	if err != nil || s.Name() != "env+redis-key" || !s.Deterministic() {
		t.Errorf("New: %v, name %q, deterministic %v", err, s.Name(), s.Deterministic())
	}
}

type deterministic struct{ guardlease.Coordinator }

func (deterministic) Deterministic() bool { return true }

// TestStartFails: Start fails, leaving the factory disabled, when the
// coordinator is unreachable for the whole acquire timeout (ErrTimeout;
// the last attempt may have been cut off rather than refused) and at once when the ordinal is not set (ErrConfig).
func TestStartFails(t *testing.T) {
	testonly.Need(t)
	env := "ONCE_GUARD_TEST_START_FAILS"
	t.Setenv(env, "web-7")
	cases := []struct {
		name  string
		env   string
		wants []error
	}{
		{"unreachable coordinator", env, []error{lease.ErrTimeout}},
		{"ordinal not set", env + "_UNSET", []error{driver.ErrConfig}},
	}
	for _, c := range cases {
		s, err := guardlease.New(envlease.New(c.env, 0), deadCoordinator(t), "redis at a dead port")
		if err != nil {
			t.Fatal(err)
		}
		f, err := nonce.New(nonce.Config{})
		if err != nil {
			t.Fatal(err)
		}
		o := lease.Options{Factories: []*nonce.Factory{f}, LeaseDuration: 4 * time.Second, RenewInterval: time.Second,
			AcquireTimeout: time.Second, Logger: slog.New(slog.DiscardHandler)}
		testonly.ShortLeases(&o)
		m, err := lease.Start(context.Background(), s, o)
		if err == nil {
			m.Close(context.Background())
			t.Fatalf("%s: Start succeeded", c.name)
		}
		for _, want := range c.wants {
			if !errors.Is(err, want) {
				t.Errorf("%s: Start: %v, want %v", c.name, err, want)
			}
		}
		if _, err := f.Sortable64(); err == nil {
			t.Errorf("%s: factory generates after a failed Start", c.name)
		}
	}
}
