package cli

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// replicatedRedis starts a private redis-server (the one on PATH) and a
// replica of it, stops both when the test ends, and returns the master's
// address once the replica is connected.
func replicatedRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testenv.Unavailable(t, "redis-server binary not found on PATH")
	}
	master := startRedis(t, bin)
	_, port, _ := net.SplitHostPort(master)
	startRedis(t, bin, "--replicaof", "127.0.0.1", port)
	c := redis.NewClient(&redis.Options{Addr: master})
	defer c.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(c.Info(context.Background(), "replication").Val(), "connected_slaves:1") {
			return master
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica did not connect within 20s")
		}
	}
}

// startRedis starts bin on a loopback port ([testenv.FreePort]) with
// args, without persistence, until the test ends, and returns its address
// once it answers.
func startRedis(t *testing.T, bin string, args ...string) string {
	t.Helper()
	port := strconv.Itoa(testenv.FreePort(t))
	addr := "127.0.0.1:" + port
	cmd := exec.Command(bin, append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return addr
		} else if time.Now().After(deadline) {
			t.Fatalf("%s on %s did not start: %v", bin, addr, err)
		}
	}
}

// TestRedisReplicaFlags: on a master with one connected replica, hold
// refuses to start (exit 1) with a message naming --wait-replicas and
// --accept-replica-loss (not the Go options); with --wait-replicas 1 or
// --accept-replica-loss it holds a lease; with --wait-replicas 2 no claim
// is acknowledged by enough replicas, so it gets no lease (exit 3); ls and
// free, which hold nothing, need neither flag.
func TestRedisReplicaFlags(t *testing.T) {
	t.Parallel()
	master := replicatedRedis(t)
	flags := []string{"--driver", "redis", "--mode", "key", "--dsn", master, "--table", testenv.Unique(t, "cli")}
	// A generous acquire timeout: each acknowledged claim waits for the
	// replica, which a loaded machine may delay past WAIT's 1s.
	hold := func(acquire string, extra ...string) result {
		args := append(append(append([]string{"lease", "hold"}, flags...), shortLease...), "--acquire-timeout", acquire, "--for", "1s")
		return runBin(t, append(args, extra...)...)
	}
	r := hold("20s")
	if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, "1 connected replicas and --wait-replicas is 0") ||
		!strings.Contains(r.stderr, "set --wait-replicas to 1") || !strings.Contains(r.stderr, "--accept-replica-loss") || strings.Contains(r.stderr, "Options.") {
		t.Errorf("hold on a replicated master without the replica flags: %v\nwant exit 1 naming --wait-replicas and --accept-replica-loss", r)
	}
	for _, extra := range [][]string{{"--wait-replicas", "1"}, {"--accept-replica-loss"}} {
		if r := hold("20s", extra...); r.code != 0 || len(r.lines()) != 1 || !strings.HasPrefix(r.stdout, "machine_id=") {
			t.Errorf("hold %s on a replicated master: %v\nwant a machine ID and exit 0", extra, r)
		}
	}
	r = hold("3s", "--wait-replicas", "2", "--verbose")
	if r.code != exitNoLease || r.stdout != "" || !strings.Contains(r.stderr, "1 of Options.WaitReplicas 2 replicas acknowledged") {
		t.Errorf("hold --wait-replicas 2 with one replica: %v\nwant exit 3: no claim acknowledged by 2 replicas", r)
	}

	s, err := redislease.New(redis.NewClient(&redis.Options{Addr: master}),
		redislease.Options{Mode: redislease.ModeKey, Name: flags[7], AcceptReplicaLoss: true})
	if err != nil {
		t.Fatal(err)
	}
	l := claimID(t, s, 3)
	if rows := ls(t, flags); !rows[3].held || rows[3].token != tokenHash(l.Token) {
		t.Errorf("ls on a replicated master: ID 3 %+v; want it held with the claim's token %s", rows[3], tokenHash(l.Token))
	}
	if r := runBin(t, append(append([]string{"lease", "free"}, flags...), "--id", "3", "--force")...); r.code != 0 || len(r.lines()) != 2 {
		t.Errorf("free on a replicated master: %v", r)
	}
}

// TestRedisFlags: --sharing sets whether NAME is shared with the Elixir
// library (its leases then report no release hold); the Redis flags are
// refused with another driver, and bad values are usage errors.
func TestRedisFlags(t *testing.T) {
	addr := testenv.Redis(t, testenv.Redis8)
	name := testenv.Unique(t, "cli")
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { c.Del(context.Background(), name); c.Close() })
	for _, tc := range []struct {
		sharing string
		hold    time.Duration // the lease's ReleaseHold
	}{{"", redislease.DefaultReleaseHold}, {"go-only", redislease.DefaultReleaseHold}, {"elixir", 0}, {"by-name", redislease.DefaultReleaseHold}} {
		fs := newFlagSet(&env{}, "test")
		bf := addBackendFlags(fs, true)
		bf.addRedisFlags(fs)
		bf.holds = true
		args := []string{"--driver", "redis", "--mode", "hash", "--dsn", addr, "--table", name}
		if tc.sharing != "" {
			args = append(args, "--sharing", tc.sharing)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		be, err := bf.open(t.Context(), true)
		if err != nil {
			t.Fatalf("--sharing %q: %v", tc.sharing, err)
		}
		l, err := be.Strategy.Acquire(t.Context(), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if l.ReleaseHold != tc.hold {
			t.Errorf("--sharing %q: the lease reports ReleaseHold %v, want %v", tc.sharing, l.ReleaseHold, tc.hold)
		}
		be.Strategy.Release(t.Context(), driver.Lease{MachineID: l.MachineID, Token: l.Token})
		be.Close()
	}

	holdArgs := append([]string{"lease", "hold", "--dsn", "127.0.0.1:1"}, shortLease...)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--driver", "postgres", "--wait-replicas", "1"}, "--driver postgres takes no --wait-replicas"},
		{[]string{"--driver", "mysql", "--accept-replica-loss"}, "--driver mysql takes no --accept-replica-loss"},
		{[]string{"--driver", "sqlite", "--sharing", "elixir"}, "--driver sqlite takes no --sharing"},
		{[]string{"--driver", "redis", "--mode", "key", "--wait-replicas", "-1"}, "--wait-replicas -1: must not be negative"},
		{[]string{"--driver", "redis", "--mode", "hash", "--sharing", "yes"}, `--sharing "yes": want by-name, elixir or go-only`},
		{[]string{"--driver", "redis", "--mode", "key", "--sharing", "elixir"}, "--sharing elixir needs --mode hash"},
	} {
		r := cli("", append(holdArgs, c.args...)...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, c.want) {
			t.Errorf("once lease hold %q: %v\nwant exit 2 and %q", c.args, r, c.want)
		}
	}
}
