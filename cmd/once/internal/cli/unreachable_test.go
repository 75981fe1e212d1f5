package cli

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
)

// deadBackends returns, for every driver of the build but SQLite, the
// flags that point lease commands at a loopback port nobody listens on.
func deadBackends(t *testing.T) map[string][]string {
	dead := testenv.DeadAddr(t)
	backends := map[string][]string{
		"postgres":   {"--driver", "postgres", "--dsn", "postgres://postgres@" + dead + "/test?sslmode=disable"},
		"mysql":      {"--driver", "mysql", "--dsn", "root@tcp(" + dead + ")/test"},
		"redis-key":  {"--driver", "redis", "--mode", "key", "--dsn", "redis://" + dead + "/0"},
		"redis-hash": {"--driver", "redis", "--mode", "hash", "--dsn", dead},
	}
	for name, flags := range taggedDead {
		backends[name] = flags(t, dead)
	}
	return backends
}

// taggedDead gives, for the drivers that only builds with their tags have
// (etcd, kubernetes), the flags that point at the unreachable address
// dead: their test files add them.
var taggedDead = map[string]func(t *testing.T, dead string) []string{}

// TestLeaseHoldUnreachable: a coordinator that stays unreachable until the
// acquire timeout is exit 3, as a full pool is, after the timeout and with
// one line on stderr (the CLI's own, no client-library log lines).
func TestLeaseHoldUnreachable(t *testing.T) {
	for name, flags := range deadBackends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			args := append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--acquire-timeout", "2s", "--for", "1s")...)
			r := runBin(t, args...)
			took := time.Since(start)
			if r.code != exitNoLease || r.stdout != "" || len(r.errLines()) != 1 || !strings.Contains(r.stderr, "acquire timeout") {
				t.Fatalf("hold on an unreachable coordinator (after %v): %v\nwant exit 3 and one line naming the acquire timeout", took, r)
			}
			if took < 2*time.Second {
				t.Errorf("hold gave up after %v, before its 2s acquire timeout", took)
			}
		})
	}
}

// closingAddr returns a loopback host:port whose listener accepts every
// connection and closes it at once, until the test ends.
func closingAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

// TestNoClientLogs: ls on an unreachable coordinator, or one that hangs up
// on every connection, fails with exit 1 and exactly one line on stderr,
// the CLI's own.
func TestNoClientLogs(t *testing.T) {
	backends := deadBackends(t)
	closing := closingAddr(t)
	backends["postgres-hangup"] = []string{"--driver", "postgres", "--dsn", "postgres://postgres@" + closing + "/test?sslmode=disable"}
	backends["mysql-hangup"] = []string{"--driver", "mysql", "--dsn", "root@tcp(" + closing + ")/test"}
	backends["redis-hangup"] = []string{"--driver", "redis", "--mode", "key", "--dsn", closing}
	for name, flags := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runBin(t, append([]string{"lease", "ls"}, flags...)...)
			if r.code != exitFail || r.stdout != "" || len(r.errLines()) != 1 || !strings.HasPrefix(r.stderr, "once lease ls: ") {
				t.Errorf("lease ls on an unreachable coordinator: %v\nwant exit 1 and one line from once lease ls", r)
			}
		})
	}
}
