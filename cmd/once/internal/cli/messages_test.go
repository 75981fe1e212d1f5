package cli

import (
	"path/filepath"
	"strconv"
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
		{[]string{"inspect", "--cipher", "speck", "AAAAAAAAAAA"}, []string{"--cipher", "--key-env"}},
		{append(hold, "--duration", "10s"), []string{"--duration 10s", "at least 30s"}},
		{append(hold, "--renew-interval", "5s"), []string{"--renew-interval 5s", "longer than 10s"}},
		{append(hold, "--duration", "30s", "--renew-interval", "25s"), []string{"--renew-interval 25s", "--duration 30s"}},
		{append(hold, "--duration", "-1s"), []string{"--duration -1s"}},
		{append(hold, "--grace", "1s"), []string{"--grace", `"-- CMD"`}},
		{append(hold, "--for", "1s", "--", "true"), []string{"--for", "without a command"}},
		{append(hold, "--"), []string{`"--" must be followed by the command`}},
		{append(hold, "true"), []string{`unexpected argument "true"`, `after "--"`}},
		{append(hold, "--duration", "30s", "--grace", "6s", "--", "true"), []string{"--grace 6s", "--duration 30s minus the default --renew-interval 15s minus 10s (5s)"}},
		{append(hold, "--duration", "30s", "--renew-interval", "11s", "--grace", "10s", "--", "true"), []string{"--grace 10s", "(9s)"}},
		{append(hold, "--grace", "0s", "--", "true"), []string{"--grace 0s"}},
		{append(hold, "--duration", "30s", "--renew-interval", "19s", "--", "true"), []string{"the default --grace 5s", "(1s)"}},
		{append(hold, "--grace", "-1s", "--", "true"), []string{"--grace -1s", "negative"}},
		// SQL's default lease is 1h, not the manager's 8h.
		{append(hold, "--renew-interval", "2h"), []string{"--renew-interval 2h0m0s", "the default --duration 1h0m0s"}},
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

// TestGenLeasedMachineID: gen takes its machine ID from ONCE_MACHINE_ID
// (as set by lease hold -- CMD) without a warning, refuses a --machine-id
// that contradicts it and a value that is no machine ID, and without
// either says how to get one.
func TestGenLeasedMachineID(t *testing.T) {
	r := cli("", "gen")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--machine-id M (0..511) is required") || !strings.Contains(r.stderr, "once lease hold ... -- once gen") {
		t.Errorf("gen without a machine ID: %v", r)
	}
	t.Setenv("ONCE_MACHINE_ID", "300")
	r = cli("", "gen", "-n", "3", "--kind", "sortable", "--to", "unsigned")
	if r.code != 0 || r.stderr != "" || len(r.lines()) != 3 {
		t.Fatalf("gen under ONCE_MACHINE_ID=300: %v\nwant 3 values and no warning", r)
	}
	for _, j := range parseInspect(t, mustCLI(t, "", append([]string{"inspect", "--int", "--"}, r.lines()...)...)) {
		if j.MachineID != 300 {
			t.Errorf("gen under ONCE_MACHINE_ID=300 made %s with machine ID %d", j.Value, j.MachineID)
		}
	}
	if r := cli("", "gen", "--machine-id", "300"); r.code != 0 {
		t.Errorf("gen --machine-id equal to ONCE_MACHINE_ID: %v", r)
	}
	if r := cli("", "gen", "--machine-id", "5"); r.code != exitUsage || !strings.Contains(r.stderr, "--machine-id 5: the lease in ONCE_MACHINE_ID is machine ID 300") {
		t.Errorf("gen --machine-id 5 under ONCE_MACHINE_ID=300: %v", r)
	}
	for _, bad := range []string{"512", "-1", "x", ""} {
		t.Setenv("ONCE_MACHINE_ID", bad)
		if r := cli("", "gen"); r.code != exitUsage || !strings.Contains(r.stderr, "ONCE_MACHINE_ID="+strconv.Quote(bad)+": not a machine ID") {
			t.Errorf("gen under ONCE_MACHINE_ID=%q: %v", bad, r)
		}
	}
}
