package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagesNameFlags: bad command lines are explained in terms of the
// command line (flag names, where values go), exit 2, and never name the
// library's Go options.
func TestMessagesNameFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "leases.db")
	hold := []string{"lease", "hold", "--driver", "sqlite", "--dsn", db}
	for _, c := range []struct {
		args []string
		want []string // substrings of stderr
	}{
		{[]string{"gen", "--machine-id", "-1"}, []string{"--machine-id -1: out of range 0..511"}},
		{[]string{"gen", "--machine-id", "512"}, []string{"--machine-id 512: out of range 0..511"}},
		{[]string{"convert", "--to", "hex", "-200"}, []string{`"-200" is not a flag`, `once convert [FLAGS] -- "-200"`}},
		{[]string{"convert", "--int", "--to", "hex", "-5"}, []string{`"-5" is not a flag`, `"--"`}},
		{[]string{"convert", "zAjhfZyAAAE", "--to", "hex"}, []string{"--to", "after the value", "flags go before values"}},
		{[]string{"mask", "--to", "hex", "AAAAAAAAAAA", "--key-env", "K"}, []string{"--key-env", "flags go before values"}},
		{[]string{"convert", "--bogus", "AAAAAAAAAAA"}, []string{`unknown flag "--bogus"`}},
		{append(hold, "--duration", "10s"), []string{"--duration 10s", "at least 30s"}},
		{append(hold, "--renew-interval", "5s"), []string{"--renew-interval 5s", "longer than 10s"}},
		{append(hold, "--duration", "30s", "--renew-interval", "25s"), []string{"--renew-interval 25s", "--duration 30s"}},
		{append(hold, "--duration", "-1s"), []string{"--duration -1s"}},
		{[]string{"lease", "ls", "--driver", "postgres", "--dsn", "postgres://u@127.0.0.1:1/db?sslmode=bogus"}, []string{"--dsn: "}},
		{[]string{"lease", "ls", "--driver", "redis", "--mode", "key", "--dsn", "127.0.0.1:1", "--table", "a{b"}, []string{"--table: "}},
	} {
		r := cli("", c.args...)
		ok := r.code == exitUsage && r.stdout == ""
		for _, w := range c.want {
			ok = ok && strings.Contains(r.stderr, w)
		}
		for _, goName := range []string{"LeaseDuration", "RenewInterval", "AcquireTimeout", "flag provided", "-machine-id M is required"} {
			ok = ok && !strings.Contains(r.stderr, goName)
		}
		if !ok {
			t.Errorf("once %q: %v\nwant exit 2 and stderr containing %q", c.args, r, c.want)
		}
	}
}
