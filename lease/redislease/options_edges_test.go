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

// TestOptionsAtTheLimits: New accepts the last value of each bounded
// option (a 200-byte Name, a 1ms WaitTimeout, Sharing GoOnly) and refuses
// the next one.
func TestOptionsAtTheLimits(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, o := range []redislease.Options{
		{Mode: redislease.ModeHash, Name: strings.Repeat("n", 200)},
		{Mode: redislease.ModeKey, WaitReplicas: 1, WaitTimeout: time.Millisecond},
		{Mode: redislease.ModeKey, Sharing: redislease.GoOnly},
	} {
		if _, err := redislease.New(c, o); err != nil {
			t.Errorf("New(%+v) = %v, want no error", o, err)
		}
	}
	for _, o := range []redislease.Options{
		{Mode: redislease.ModeHash, Name: strings.Repeat("n", 201)},
		{Mode: redislease.ModeKey, WaitReplicas: 1, WaitTimeout: time.Millisecond - 1},
		{Mode: redislease.ModeKey, Sharing: redislease.GoOnly + 1},
	} {
		if _, err := redislease.New(c, o); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", o, err)
		}
	}
}
