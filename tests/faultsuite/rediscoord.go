package faultsuite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/tests/faultproxy"
)

// redisCoordinator is the table entry of one Redis-protocol server and
// mode. Shared servers (6379, 6380, 6381) get a fresh NAME per test whose
// keys are deleted afterwards; restart and data-loss cases get a private
// server process on a free port (never FLUSHALL or restart the shared
// ones: other packages' tests run on them at the same time).
func redisCoordinator(name string, srv testenv.Server, mode redislease.Mode) Coordinator {
	return Coordinator{
		Name:    name,
		Network: true,
		Setup:   func(t *testing.T, private bool) *Space { return redisSetup(t, srv, mode, private) },
		Connect: func(target, ns string, pool int) (*Client, error) { return redisConnect(mode, target, ns, pool) },
		HoldStrategy: func(t *testing.T, sp *Space, hold time.Duration) driver.Strategy {
			return redisHoldStrategy(t, sp, mode, hold)
		},
	}
}

func redisConnect(mode redislease.Mode, target, ns string, pool int) (*Client, error) {
	c := redis.NewClient(&redis.Options{
		Addr:                  target,
		ContextTimeoutEnabled: true,
		PoolSize:              pool,
		DialTimeout:           time.Second,
	})
	return &Client{
		Strategy: func(lowest bool) (driver.Strategy, error) {
			return redislease.New(c, redislease.Options{Mode: mode, Name: ns, LowestFirst: lowest})
		},
		Close: c.Close,
	}, nil
}

func redisSetup(t *testing.T, srv testenv.Server, mode redislease.Mode, private bool) *Space {
	t.Helper()
	sp := &Space{NS: testenv.Unique(t, "fault")}
	var rs *redisServer
	if private {
		rs = startRedis(t, srv)
		sp.Target = rs.addr
	} else {
		sp.Target = testenv.Redis(t, srv)
	}
	sp.Upstream = sp.Target
	sp.Via = func(addr string) string { return addr }
	admin := redis.NewClient(&redis.Options{Addr: sp.Target, ContextTimeoutEnabled: true, PoolSize: 4})
	keys := make([]string, redislease.Capacity)
	for id := range keys {
		keys[id] = "{" + sp.NS + "}:" + strconv.Itoa(id)
	}
	t.Cleanup(func() {
		if !private {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			admin.Del(ctx, append([]string{sp.NS}, keys...)...)
		}
		admin.Close()
	})
	sp.Expiry = func(ctx context.Context, id int) (time.Time, bool, error) {
		var ms int64
		if mode == redislease.ModeKey {
			d, err := admin.PTTL(ctx, keys[id]).Result()
			if err != nil {
				return time.Time{}, false, err
			}
			ms = d.Milliseconds()
			if d < 0 { // go-redis maps -2 (no key) and -1 (no TTL) to negative durations
				ms = -2
			}
		} else {
			r, err := admin.Do(ctx, "HPTTL", sp.NS, "FIELDS", 1, strconv.Itoa(id)).Int64Slice()
			if err != nil {
				return time.Time{}, false, err
			}
			if len(r) != 1 {
				return time.Time{}, false, fmt.Errorf("HPTTL reply %v", r)
			}
			ms = r[0]
		}
		if ms < 0 {
			return time.Time{}, false, nil
		}
		return time.Now().Add(time.Duration(ms) * time.Millisecond), true, nil
	}
	sp.Held = func(ctx context.Context) (int, error) {
		if mode == redislease.ModeKey {
			n, err := admin.Exists(ctx, keys...).Result()
			return int(n), err
		}
		fields, err := admin.HKeys(ctx, sp.NS).Result()
		n := 0
		for _, f := range fields {
			if id, err := strconv.Atoi(f); err == nil && id >= 0 && id < redislease.Capacity && strconv.Itoa(id) == f {
				n++
			}
		}
		return n, err
	}
	sp.Fill = func(ctx context.Context, keep int, d time.Duration) error {
		const token = "other-holders-token-22"
		if mode == redislease.ModeKey {
			_, err := admin.Pipelined(ctx, func(p redis.Pipeliner) error {
				for id, k := range keys {
					if id != keep {
						p.Set(ctx, k, token, d)
					}
				}
				return nil
			})
			return err
		}
		args := []any{"HSETEX", sp.NS, "PX", d.Milliseconds(), "FIELDS", 2 * (len(keys) - 1)}
		for id := range keys {
			if id != keep {
				sid := strconv.Itoa(id)
				args = append(args, sid, token, "token."+sid+"."+token, sid)
			}
		}
		return admin.Do(ctx, args...).Err()
	}
	if private {
		sp.Wipe = func(ctx context.Context) error { return admin.FlushAll(ctx).Err() }
		sp.Restart = func(ctx context.Context, _ *faultproxy.Proxy) error { return rs.restart(ctx) }
		sp.RestartLoses = true
	} else {
		sp.Wipe = func(ctx context.Context) error { return admin.Del(ctx, append([]string{sp.NS}, keys...)...).Err() }
	}
	return sp
}

// redisBinary is the server program for srv: redis-server on PATH for
// Redis 7, and the wrappers kv-servers.sh installs for Redis 8 and Valkey
// 9 (overridable with ONCE_TEST_REDIS7_BIN, ONCE_TEST_REDIS8_BIN,
// ONCE_TEST_VALKEY9_BIN).
func redisBinary(srv testenv.Server) string {
	kv := os.Getenv("KV_DIR")
	if kv == "" {
		kv = "/opt/once-kv"
	}
	switch srv {
	case testenv.Redis8:
		return envOr("ONCE_TEST_REDIS8_BIN", filepath.Join(kv, "redis8.sh"))
	case testenv.Valkey9:
		return envOr("ONCE_TEST_VALKEY9_BIN", filepath.Join(kv, "valkey9.sh"))
	}
	if p, err := exec.LookPath(envOr("ONCE_TEST_REDIS7_BIN", "redis-server")); err == nil {
		return p
	}
	return "redis-server"
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// redisServer is a private server process on a free loopback port,
// started with kv-servers.sh's flags (no persistence), killed when the
// test ends.
type redisServer struct {
	bin, dir, addr string
	port           int
	cmd            *exec.Cmd
	exited         chan struct{}
}

func startRedis(t *testing.T, srv testenv.Server) *redisServer {
	t.Helper()
	bin := redisBinary(srv)
	if _, err := os.Stat(bin); err != nil {
		if _, lerr := exec.LookPath(bin); lerr != nil {
			reason := fmt.Sprintf("%s binary %s not found (run ../shared/tools/kv-servers.sh fetch)", srv, bin)
			if srv == testenv.Valkey9 && os.Getenv("ONCE_TEST_VALKEY9_OPTIONAL") == "1" {
				t.Skip(reason)
			}
			testenv.Unavailable(t, reason)
		}
	}
	rs := &redisServer{bin: bin, dir: t.TempDir()}
	var err error
	for range 3 { // a free port can be taken between probing and binding
		rs.port = testenv.FreePort(t)
		rs.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(rs.port))
		if err = rs.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("private %s server: %v", srv, err)
	}
	t.Cleanup(rs.kill)
	return rs
}

// start runs the server on rs.port and waits until it answers PING.
func (rs *redisServer) start() error {
	cmd := exec.Command(rs.bin, "--port", strconv.Itoa(rs.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", rs.dir,
		"--logfile", filepath.Join(rs.dir, "server.log"))
	if err := cmd.Start(); err != nil {
		return err
	}
	rs.cmd, rs.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(rs.exited) }()
	c := redis.NewClient(&redis.Options{Addr: rs.addr, DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		switch {
		case err == nil:
			return nil
		case time.Now().After(deadline):
			rs.kill()
			return fmt.Errorf("%s on port %d did not answer: %v", rs.bin, rs.port, err)
		}
		select {
		case <-rs.exited:
			log, _ := os.ReadFile(filepath.Join(rs.dir, "server.log"))
			return fmt.Errorf("%s on port %d exited: %s", rs.bin, rs.port, LastLines(string(log), 3))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// restart shuts the server down without saving (its data is lost, as with
// a crash of a server without persistence) and starts it again on the
// same port.
func (rs *redisServer) restart(ctx context.Context) error {
	c := redis.NewClient(&redis.Options{Addr: rs.addr, MaxRetries: -1})
	err := c.Do(ctx, "SHUTDOWN", "NOSAVE").Err()
	c.Close()
	if err == nil {
		return errors.New("SHUTDOWN NOSAVE answered instead of closing the connection")
	}
	select {
	case <-rs.exited:
	case <-ctx.Done():
		return fmt.Errorf("server did not exit after SHUTDOWN NOSAVE (%v): %w", err, ctx.Err())
	}
	return rs.start()
}

func (rs *redisServer) kill() {
	if rs.cmd != nil && rs.cmd.Process != nil {
		rs.cmd.Process.Kill()
		<-rs.exited
	}
}
