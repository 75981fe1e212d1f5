package redislease_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

var modes = []redislease.Mode{redislease.ModeHash, redislease.ModeKey}

var someLease = driver.Lease{MachineID: 3, Token: "AAAAAAAAAAAAAAAAAAAAAA"}

// wantAll checks that Check, Acquire, Renew and Release all fail with want.
func wantAll(t *testing.T, s *redislease.Strategy, want error, also ...error) {
	t.Helper()
	ctx := ctxT(t)
	_, aerr := s.Acquire(ctx, time.Minute)
	_, rerr := s.Renew(ctx, someLease, time.Minute)
	for op, err := range map[string]error{
		"Check":   s.Check(ctx),
		"Acquire": aerr,
		"Renew":   rerr,
		"Release": s.Release(ctx, someLease),
	} {
		if !errors.Is(err, want) {
			t.Errorf("%s = %v, want %v", op, err, want)
		}
		for _, a := range also {
			if !errors.Is(err, a) {
				t.Errorf("%s = %v, want it to wrap %v too", op, err, a)
			}
		}
		for _, other := range []error{driver.ErrLost, driver.ErrConfig, driver.ErrRetry, driver.ErrConflict} {
			if other != want && errors.Is(err, other) {
				t.Errorf("%s = %v, also matches %v", op, err, other)
			}
		}
	}
}

// TestDeadPortIsRetry: nobody listens. Hash mode goes through Open with the
// client's default retries (slow: go-redis redials), key mode through a URL
// that turns them off.
func TestDeadPortIsRetry(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			if testing.Short() && m != redislease.ModeKey {
				t.Skip("-short: go-redis's default redials take seconds")
			}
			t.Parallel()
			dsn := testenv.DeadAddr(t)
			if m == redislease.ModeKey {
				dsn = "redis://" + dsn + "/0?max_retries=-1"
			}
			s, err := redislease.Open(dsn, redislease.Options{Mode: m})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			wantAll(t, s, driver.ErrRetry)
		})
	}
}

func TestClosedClientIsRetry(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: testenv.Redis(t, testenv.Redis8)})
			s := strategy(t, c, m, namespace(t, client(t, testenv.Redis8)), false)
			c.Close()
			wantAll(t, s, driver.ErrRetry, redis.ErrClosed)
		})
	}
}

func TestContextEndIsRetry(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		s := strategy(t, c, tg.mode, namespace(t, c), false)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrRetry) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire with a canceled context = %v, want ErrRetry wrapping context.Canceled", err)
		}
	})
}

// TestHungServer: a server that never replies gives ErrRetry, by the
// client's read timeout or, sooner, by the caller's context's deadline on
// a client built with ContextTimeoutEnabled.
func TestHungServer(t *testing.T) {
	addr := blackhole(t)
	for _, m := range modes {
		t.Run(m.String()+"/read timeout", func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 100 * time.Millisecond, MaxRetries: -1, DisableIdentity: true})
			defer c.Close()
			s := strategy(t, c, m, "once_leases", false)
			_, err := s.Acquire(t.Context(), time.Minute)
			var ne net.Error
			if !errors.Is(err, driver.ErrRetry) || !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("Acquire = %v, want ErrRetry wrapping a timeout", err)
			}
		})
		t.Run(m.String()+"/context", func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: time.Hour, MaxRetries: -1, DisableIdentity: true, ContextTimeoutEnabled: true})
			defer c.Close()
			s := strategy(t, c, m, "once_leases", false)
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			_, err := s.Renew(ctx, someLease, time.Minute)
			if !errors.Is(err, driver.ErrRetry) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Renew = %v, want ErrRetry wrapping context.DeadlineExceeded", err)
			}
		})
	}
}

// TestPoolTimeoutIsRetry exhausts a one-connection pool on a real server.
func TestPoolTimeoutIsRetry(t *testing.T) {
	addr := testenv.Redis(t, testenv.Redis7)
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, PoolTimeout: 100 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	s := strategy(t, c, redislease.ModeKey, namespace(t, client(t, testenv.Redis7)), false)
	if err := s.Check(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.BLPop(context.Background(), 2*time.Second, testenv.Unique(t, "blpop")) })
	for c.PoolStats().IdleConns != 0 || c.PoolStats().TotalConns != 1 {
		time.Sleep(time.Millisecond) // wait until BLPOP holds the only connection
	}
	time.Sleep(20 * time.Millisecond)
	_, err := s.Renew(ctxT(t), someLease, time.Minute)
	if !errors.Is(err, driver.ErrRetry) || !errors.Is(err, redis.ErrPoolTimeout) {
		t.Fatalf("Renew with the pool exhausted = %v, want ErrRetry wrapping ErrPoolTimeout", err)
	}
}

// TestServerErrorMapping: transient server states are ErrRetry on every
// call; unsupported-command, ACL and type replies are ErrConfig at Check and
// Acquire (no lease held yet) and ErrRetry at Renew and Release (a lease is
// held and the outcome is unknown: the manager retries until its deadline).
func TestServerErrorMapping(t *testing.T) {
	retry := []string{
		"-LOADING Redis is loading the dataset in memory",
		"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
		"-READONLY You can't write against a read only replica.",
		"-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
		"-CLUSTERDOWN The cluster is down",
		"-TRYAGAIN Multiple keys request during rehashing of slot",
		"-OOM command not allowed when used memory > 'maxmemory'.",
		"-ERR something unexpected",
	}
	config := []string{
		"-ERR unknown command 'HSETEX', with args beginning with: 'x'",
		"-ERR wrong number of arguments for 'hsetex' command",
		"-NOPERM User default has no permissions to run the 'evalsha' command",
	}
	for _, m := range modes {
		for _, reply := range append(retry, config...) {
			code, _, _ := strings.Cut(reply[1:], " ")
			t.Run(m.String()+"/"+code+"/"+strconv.Itoa(len(reply)), func(t *testing.T) {
				var r atomic.Pointer[string]
				r.Store(&reply)
				c := redis.NewClient(&redis.Options{Addr: fakeServer(t, &r), MaxRetries: -1, DisableIdentity: true})
				defer c.Close()
				ctx := ctxT(t)
				isConfig := slices.Contains(config, reply)
				startWant := driver.ErrRetry
				if isConfig {
					startWant = driver.ErrConfig
				}
				// Before any lease: Check and Acquire (and a Renew that
				// must run the check first).
				s := strategy(t, c, m, "once_leases", false)
				if err := s.Check(ctx); !errors.Is(err, startWant) {
					t.Errorf("Check = %v, want %v", err, startWant)
				}
				if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, startWant) || errors.Is(err, driver.ErrConflict) {
					t.Errorf("Acquire = %v, want %v", err, startWant)
				}
				if _, err := s.Renew(ctx, someLease, time.Minute); !errors.Is(err, startWant) {
					t.Errorf("first-call Renew = %v, want %v", err, startWant)
				}
				// While holding: the check passed on a healthy server, then
				// the server turns bad. Nothing is ErrConfig or ErrLost now.
				healthy := ""
				r.Store(&healthy)
				s = strategy(t, c, m, "once_leases", false)
				if err := s.Check(ctx); err != nil {
					t.Fatalf("Check on the healthy fake: %v", err)
				}
				r.Store(&reply)
				if _, err := s.Renew(ctx, someLease, time.Minute); !errors.Is(err, driver.ErrRetry) {
					t.Errorf("Renew = %v, want ErrRetry", err)
				}
				if err := s.Release(ctx, someLease); !errors.Is(err, driver.ErrRetry) {
					t.Errorf("Release = %v, want ErrRetry", err)
				}
				if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, startWant) || errors.Is(err, driver.ErrConflict) {
					t.Errorf("Acquire after Check = %v, want %v", err, startWant)
				}
			})
		}
	}
}

// TestRealReplicaErrors puts real redis-server processes in the states the
// mapping names: a replica (READONLY on writes), a replica of a dead master
// with stale reads off (MASTERDOWN), and a server running a long script
// (BUSY). All are ErrRetry in key mode.
func TestRealReplicaErrors(t *testing.T) {
	t.Run("READONLY", func(t *testing.T) {
		addr := privateRedis(t, "--replicaof", "127.0.0.1", strings.Split(testenv.DeadAddr(t), ":")[1])
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		s := strategy(t, c, redislease.ModeKey, "once_leases", false)
		_, err := s.Acquire(ctxT(t), time.Minute)
		if !errors.Is(err, driver.ErrRetry) || !strings.Contains(err.Error(), "READONLY") {
			t.Fatalf("Acquire on a replica = %v, want ErrRetry (READONLY)", err)
		}
	})
	t.Run("MASTERDOWN", func(t *testing.T) {
		addr := privateRedis(t, "--replicaof", "127.0.0.1", strings.Split(testenv.DeadAddr(t), ":")[1], "--replica-serve-stale-data", "no")
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		s := strategy(t, c, redislease.ModeKey, "once_leases", false)
		wantAll(t, s, driver.ErrRetry)
		if err := s.Check(ctxT(t)); !strings.Contains(err.Error(), "MASTERDOWN") {
			t.Fatalf("Check = %v, want MASTERDOWN", err)
		}
	})
	t.Run("BUSY", func(t *testing.T) {
		addr := privateRedis(t, "--busy-reply-threshold", "50")
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		s := strategy(t, c, redislease.ModeKey, "once_leases", false)
		if err := s.Check(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		l, err := s.Acquire(ctxT(t), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		busy := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: -1})
		defer busy.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			busy.Eval(context.Background(), "local i = 0 while true do i = i + 1 end", nil)
		}()
		defer func() { <-done }()
		defer c.ScriptKill(context.Background())
		for {
			_, err = s.Renew(ctxT(t), l, time.Minute)
			if err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond) // script not started yet
		}
		if !errors.Is(err, driver.ErrRetry) || !strings.Contains(err.Error(), "BUSY") {
			t.Fatalf("Renew during a long script = %v, want ErrRetry (BUSY)", err)
		}
	})
}
