package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
)

// etcdSetup is the setup of an etcd backend in builds with the etcd
// driver, nil in others.
var etcdSetup func(t *testing.T) ([]string, func(*testing.T, int))

// TestReleaseHoldFlag: with --driver redis or etcd, --release-hold sets how
// long a released machine ID stays taken: 20s keeps it held about 20s after
// hold exits, 0 frees it at once. Other drivers refuse the flag.
func TestReleaseHoldFlag(t *testing.T) {
	redisKey := redisSetup(testenv.Redis7, "key")
	redisHash := redisSetup(testenv.Redis8, "hash")
	type holdCase struct {
		name      string
		setup     func(t *testing.T) ([]string, func(*testing.T, int))
		hold      string
		heldFor   time.Duration // the ls TTL after release (0: free)
		tolerance time.Duration
	}
	cases := []holdCase{
		{"redis-key", redisKey, "20s", 20 * time.Second, 5 * time.Second},
		{"redis-key", redisKey, "0", 0, 0},
		{"redis-hash", redisHash, "20s", 20 * time.Second, 5 * time.Second},
		{"redis-hash", redisHash, "0", 0, 0},
	}
	if etcdSetup != nil {
		// etcd reports the remaining TTL in whole seconds, rounded down,
		// and may grant a little more than asked.
		cases = append(cases, holdCase{"etcd", etcdSetup, "20s", 20 * time.Second, 5 * time.Second}, holdCase{"etcd", etcdSetup, "0", 0, 0})
	}
	for _, c := range cases {
		t.Run(c.name+"-"+c.hold, func(t *testing.T) {
			t.Parallel()
			flags, _ := c.setup(t)
			p := startHold(t, append(append(flags, shortLease...), "--release-hold", c.hold, "--for", "1s")...)
			id := p.machineID(t)
			if code := p.wait(); code != 0 {
				t.Fatalf("hold --release-hold %s: exit %d, stderr %s", c.hold, code, p.errb.String())
			}
			row := ls(t, flags)[id]
			if c.heldFor == 0 {
				if row.held {
					t.Errorf("--release-hold 0: machine ID %d still held after hold exited: %+v", id, row)
				}
				return
			}
			if left := row.ttl; !row.held || left < c.heldFor-c.tolerance || left > c.heldFor+time.Second {
				t.Errorf("--release-hold %s: machine ID %d after hold exited: %+v (%v left), want held about %v",
					c.hold, id, row, left, c.heldFor)
			}
		})
	}
	r := cli("", "lease", "hold", "--driver", "postgres", "--dsn", "postgres://x@127.0.0.1:1/db", "--release-hold", "1s")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--release-hold") {
		t.Errorf("--release-hold with --driver postgres: %v\nwant a usage error naming --release-hold", r)
	}
}
