package main

import (
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
)

// TestReleaseHoldFlag: with --driver redis, --release-hold sets how long a
// released machine ID stays taken: 20s keeps it held about 20s after hold
// exits, 0 frees it at once. Other drivers refuse the flag.
func TestReleaseHoldFlag(t *testing.T) {
	for _, c := range []struct {
		hold       string
		heldFor    time.Duration // the ls expiry after release, from now (0: free)
		tolerance  time.Duration
		serverName testenv.Server
		mode       string
	}{
		{"20s", 20 * time.Second, 5 * time.Second, testenv.Redis7, "key"},
		{"0", 0, 0, testenv.Redis7, "key"},
		{"20s", 20 * time.Second, 5 * time.Second, testenv.Redis8, "hash"},
		{"0", 0, 0, testenv.Redis8, "hash"},
	} {
		t.Run(c.mode+"-"+c.hold, func(t *testing.T) {
			t.Parallel()
			flags, _ := redisSetup(c.serverName, c.mode)(t)
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
			if left := time.Until(row.expiry); !row.held || left < c.heldFor-c.tolerance || left > c.heldFor {
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
