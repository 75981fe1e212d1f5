package redislease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

func TestHashModeRefusedOnRedis7(t *testing.T) {
	c := client(t, testenv.Redis7)
	name := namespace(t, c)
	s := strategy(t, c, redislease.ModeHash, name, false)
	ctx := ctxT(t)
	err := s.Check(ctx)
	if !errors.Is(err, driver.ErrConfig) || errors.Is(err, driver.ErrConflict) {
		t.Fatalf("Check = %v, want ErrConfig", err)
	}
	if !strings.Contains(err.Error(), "Redis 7.") || !strings.Contains(err.Error(), "HSETEX") {
		t.Errorf("error %q should name the server version and HSETEX", err)
	}
	if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
		t.Fatalf("Acquire = %v, want ErrConfig", err)
	}
	// A first call that is a Renew (a lease reloaded from a state file) is
	// checked too.
	s2 := strategy(t, c, redislease.ModeHash, name, false)
	if _, err := s2.Renew(ctx, driver.Lease{MachineID: 1, Token: "AAAAAAAAAAAAAAAAAAAAAA"}, time.Minute); !errors.Is(err, driver.ErrConfig) {
		t.Fatalf("Renew = %v, want ErrConfig", err)
	}
	if n := c.Exists(ctx, name).Val(); n != 0 {
		t.Fatal("the refused check wrote to the server")
	}
}

func TestCheckPasses(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategy(t, c, tg.mode, name, false)
		if err := s.Check(ctxT(t)); err != nil {
			t.Fatalf("Check: %v", err)
		}
		if n := c.Exists(ctxT(t), append(idKeys(name), name)...).Val(); n != 0 {
			t.Fatalf("Check wrote %d keys", n)
		}
	})
}

// TestModeRefusal: each mode refuses when the other's data exists under
// the same NAME, at Check and at Acquire.
func TestModeRefusal(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		ctx := ctxT(t)

		t.Run("hash after key", func(t *testing.T) {
			name := namespace(t, c)
			k := strategy(t, c, redislease.ModeKey, name, false)
			if _, err := k.Acquire(ctx, time.Minute); err != nil {
				t.Fatal(err)
			}
			h := strategy(t, c, redislease.ModeHash, name, false)
			if err := h.Check(ctx); !errors.Is(err, driver.ErrConfig) {
				t.Fatalf("hash Check with key-mode data = %v, want ErrConfig", err)
			}
			if _, err := h.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
				t.Fatalf("hash Acquire with key-mode data = %v, want ErrConfig", err)
			}
			// Also when the data appears after a successful check.
			name2 := namespace(t, c)
			h2 := strategy(t, c, redislease.ModeHash, name2, false)
			if err := h2.Check(ctx); err != nil {
				t.Fatal(err)
			}
			c.Set(ctx, idKey(name2, 511), "x", time.Minute)
			if _, err := h2.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
				t.Fatalf("hash Acquire after key-mode data appeared = %v, want ErrConfig", err)
			}
			if n := c.Exists(ctx, name, name2).Val(); n != 0 {
				t.Fatal("refused hash mode wrote its hash")
			}
		})

		t.Run("key after hash", func(t *testing.T) {
			name := namespace(t, c)
			h := strategy(t, c, redislease.ModeHash, name, false)
			if _, err := h.Acquire(ctx, time.Minute); err != nil {
				t.Fatal(err)
			}
			k := strategy(t, c, redislease.ModeKey, name, false)
			if err := k.Check(ctx); !errors.Is(err, driver.ErrConfig) {
				t.Fatalf("key Check with hash-mode data = %v, want ErrConfig", err)
			}
			if _, err := k.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
				t.Fatalf("key Acquire with hash-mode data = %v, want ErrConfig", err)
			}
			// The acquire script re-checks atomically after a passed Check.
			name2 := namespace(t, c)
			k2 := strategy(t, c, redislease.ModeKey, name2, false)
			if err := k2.Check(ctx); err != nil {
				t.Fatal(err)
			}
			c.HSet(ctx, name2, "7", "x")
			if _, err := k2.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
				t.Fatalf("key Acquire after hash-mode data appeared = %v, want ErrConfig", err)
			}
			if n := c.Exists(ctx, append(idKeys(name), idKeys(name2)...)...).Val(); n != 0 {
				t.Fatal("refused key mode wrote keys")
			}
		})
	})
}

// TestHashWrongType: NAME holding a string is a configuration error.
func TestHashWrongType(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)
		c.Set(ctx, name, "not a hash", time.Minute)
		s := strategy(t, c, redislease.ModeHash, name, false)
		if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
			t.Fatalf("Acquire on a string key = %v, want ErrConfig", err)
		}
	})
}
