package redislease_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// durableServer is a private server that writes every command to its
// append-only file before answering (appendonly yes, appendfsync always),
// so a restart on the same directory must bring back every acknowledged
// write.
type durableServer struct {
	bin, addr, dir string
	cmd            *exec.Cmd
}

func (d *durableServer) start(t *testing.T) {
	t.Helper()
	_, port, _ := net.SplitHostPort(d.addr)
	d.cmd = exec.Command(d.bin, "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--dir", d.dir)
	require.NoError(t, d.cmd.Start(), "start %s", d.bin)
	c := redis.NewClient(&redis.Options{Addr: d.addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return
		}
		require.True(t, time.Now().Before(deadline), "server %s on %s did not start: %v", d.bin, d.addr, err)
		time.Sleep(20 * time.Millisecond)
	}
}

// kill stops the server with SIGKILL: only what the append-only file
// holds survives.
func (d *durableServer) kill() {
	if d.cmd != nil && d.cmd.Process != nil {
		d.cmd.Process.Kill()
		d.cmd.Wait()
	}
}

func kvBinary(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("KV_DIR")
	if dir == "" {
		dir = "/opt/once-kv"
	}
	bin := filepath.Join(dir, name+".sh")
	if _, err := os.Stat(bin); err != nil {
		testenv.Unavailable(t, bin+" not found (run ../shared/tools/kv-servers.sh fetch)")
	}
	return bin
}

// TestRestartKeepsRenewedLease renews a lease past the TTL of its first
// claim, kills a server that syncs every write to its append-only file
// and starts it again on the same directory: the lease must come back
// with the server. The holder renews it, and a second strategy asking for
// the lowest free ID gets another one.
func TestRestartKeepsRenewedLease(t *testing.T) {
	cases := []struct {
		name string
		mode redislease.Mode
		bin  func(t *testing.T) string
	}{
		{"Redis8/hash", redislease.ModeHash, func(t *testing.T) string { return kvBinary(t, "redis8") }},
		{"Valkey9/hash", redislease.ModeHash, func(t *testing.T) string { return kvBinary(t, "valkey9") }},
		{"Redis8/key", redislease.ModeKey, func(t *testing.T) string { return kvBinary(t, "redis8") }},
		{"Redis7/key", redislease.ModeKey, func(t *testing.T) string {
			bin, err := exec.LookPath("redis-server")
			if err != nil {
				testenv.Unavailable(t, "redis-server (Redis 7) not on PATH")
			}
			return bin
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testenv.Short(t, "a private server restarted under a lease")
			srv := &durableServer{bin: tc.bin(t), addr: "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)), dir: t.TempDir()}
			srv.start(t)
			t.Cleanup(srv.kill)
			c := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true})
			t.Cleanup(func() { c.Close() })
			ctx := ctxT(t)
			const ttl = 3 * time.Second
			a := strategy(t, c, tc.mode, "restart_test", true)
			l, err := a.Acquire(ctx, ttl)
			require.NoError(t, err, "first claim")
			// Renew until the first claim's own expiry is well past: from
			// then on only the renewals keep the lease.
			for end := time.Now().Add(ttl + 1500*time.Millisecond); time.Now().Before(end); {
				time.Sleep(500 * time.Millisecond)
				l, err = a.Renew(ctx, l, ttl)
				require.NoError(t, err, "renewal before the restart")
			}
			srv.kill()
			srv.start(t)
			l2, err := a.Renew(ctx, l, ttl)
			assert.NoError(t, err, "renewal after the restart: the server lost a lease every write of which it had synced")
			if err != nil {
				assert.True(t, errors.Is(err, driver.ErrLost), "renewal error %v is not ErrLost", err)
			} else {
				assert.Equal(t, l.MachineID, l2.MachineID)
			}
			b := strategy(t, c, tc.mode, "restart_test", true)
			other, err := b.Acquire(ctx, ttl)
			require.NoError(t, err, "second strategy's claim")
			assert.NotEqual(t, l.MachineID, other.MachineID,
				"after the restart a second strategy acquired machine ID %d, still held by the first", l.MachineID)
			if t.Failed() {
				info, _ := c.Info(ctx, "server").Result()
				for _, line := range strings.Split(info, "\n") {
					if strings.HasPrefix(line, "redis_version") || strings.HasPrefix(line, "valkey_version") {
						t.Log(strings.TrimSpace(line))
					}
				}
			}
		})
	}
}

// TestRestartKeepsReleaseHold releases a lease shortly before its expiry
// with a release hold that outlasts it, then kills and restarts the server
// on the same directory after the lease's own expiry and before the hold's
// end: the ID must still be held, as it would have been without the
// restart.
func TestRestartKeepsReleaseHold(t *testing.T) {
	cases := []struct {
		name string
		mode redislease.Mode
		bin  string
	}{
		{"Redis8/hash", redislease.ModeHash, "redis8"},
		{"Valkey9/hash", redislease.ModeHash, "valkey9"},
		{"Redis8/key", redislease.ModeKey, "redis8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testenv.Short(t, "a private server restarted under a release hold")
			srv := &durableServer{bin: kvBinary(t, tc.bin), addr: "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)), dir: t.TempDir()}
			srv.start(t)
			t.Cleanup(srv.kill)
			c := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true})
			t.Cleanup(func() { c.Close() })
			ctx := ctxT(t)
			a := strategyOpts(t, c, redislease.Options{Mode: tc.mode, Name: "restart_test", LowestFirst: true, ReleaseHold: 5 * time.Second})
			l, err := a.Acquire(ctx, time.Second)
			require.NoError(t, err, "claim")
			time.Sleep(500 * time.Millisecond)
			require.NoError(t, a.Release(ctx, l), "release")
			// Past the lease's own expiry, within the hold.
			time.Sleep(1500 * time.Millisecond)
			srv.kill()
			srv.start(t)
			b := strategy(t, c, tc.mode, "restart_test", true)
			other, err := b.Acquire(ctx, time.Second)
			require.NoError(t, err, "second strategy's claim")
			assert.NotEqual(t, l.MachineID, other.MachineID,
				"after the restart a second strategy acquired machine ID %d within its release hold", l.MachineID)
		})
	}
}
