package redislease

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
)

// TestUnsafePolicyMessage: an unsafe policy is ErrConfig at start and
// ErrLost while a lease is held, and only key mode under a volatile-*
// policy is pointed to hash mode (which that policy cannot evict).
func TestUnsafePolicyMessage(t *testing.T) {
	const hint = "or use hash mode"
	for _, c := range []struct {
		mode   Mode
		policy string
		hint   bool
	}{
		{ModeKey, "volatile-lru", true},
		{ModeKey, "allkeys-lru", false},
		{ModeHash, "allkeys-lru", false},
	} {
		s := &Strategy{opts: Options{Mode: c.mode, Name: DefaultName}}
		m := memoryInfo{maxmemory: 1 << 20, policy: c.policy, ok: true}
		err := s.unsafePolicy(m, true)
		if !errors.Is(err, driver.ErrConfig) || strings.Contains(err.Error(), hint) != c.hint ||
			!strings.Contains(err.Error(), "maxmemory-policy "+c.policy) {
			t.Errorf("%v %s at start: %v; want ErrConfig naming the policy, hint %v", c.mode, c.policy, err, c.hint)
		}
		if err := s.unsafePolicy(m, false); !errors.Is(err, driver.ErrLost) || errors.Is(err, driver.ErrConfig) {
			t.Errorf("%v %s while held: %v, want ErrLost", c.mode, c.policy, err)
		}
	}
}
