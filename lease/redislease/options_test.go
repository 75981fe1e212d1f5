package redislease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

func TestOptions(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	bad := []redislease.Options{
		{},        // mode unset: no default
		{Mode: 3}, // unknown mode
		{Mode: redislease.ModeKey, Name: "a{b}"},
		{Mode: redislease.ModeHash, Name: "has space"},
		{Mode: redislease.ModeHash, Name: string(make([]byte, 201))},
		{Mode: redislease.ModeHash, Candidates: -1},
		{Mode: redislease.ModeKey, WaitReplicas: -1},
		{Mode: redislease.ModeKey, WaitTimeout: -time.Second},
		{Mode: redislease.ModeKey, WaitTimeout: time.Microsecond},
	}
	for _, o := range bad {
		if _, err := redislease.New(c, o); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", o, err)
		}
	}
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	if _, err := redislease.New(ring, redislease.Options{Mode: redislease.ModeKey, WaitReplicas: 1}); !errors.Is(err, driver.ErrConfig) ||
		!strings.Contains(err.Error(), "WaitReplicas needs a *redis.Client or *redis.ClusterClient") {
		t.Errorf("New(Ring, WaitReplicas 1) = %v, want ErrConfig", err)
	}
	if _, err := redislease.New(ring, redislease.Options{Mode: redislease.ModeKey}); err != nil {
		t.Errorf("New(Ring) without WaitReplicas = %v", err)
	}
	if _, err := redislease.New(nil, redislease.Options{Mode: redislease.ModeKey}); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("New(nil) = %v, want ErrConfig", err)
	}
	for mode, want := range map[redislease.Mode]string{redislease.ModeHash: "redis-hash", redislease.ModeKey: "redis-key"} {
		s, err := redislease.New(c, redislease.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != want || s.Deterministic() || s.Key() != redislease.DefaultName || s.Mode() != mode {
			t.Errorf("%v: Name %q Deterministic %v Key %q", mode, s.Name(), s.Deterministic(), s.Key())
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close of a strategy on the caller's client: %v", err)
		}
	}
	for in, want := range map[string]redislease.Mode{"hash": redislease.ModeHash, "KEY": redislease.ModeKey} {
		if m, err := redislease.ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, m, err)
		}
	}
	if _, err := redislease.ParseMode("auto"); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("ParseMode(auto) = %v, want ErrConfig", err)
	}
	for _, dsn := range []string{"", "redis://[bad", "http://x"} {
		if _, err := redislease.Open(dsn, redislease.Options{Mode: redislease.ModeKey}); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Open(%q) = %v, want ErrConfig", dsn, err)
		}
	}
	if _, err := redislease.Open("127.0.0.1:1", redislease.Options{}); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("Open without a mode = %v, want ErrConfig", err)
	}
}
