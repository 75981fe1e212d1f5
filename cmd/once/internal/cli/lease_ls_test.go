package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// listBackends are the coordinators of the ls and free tests: every lease
// backend, Redis 8 in key mode, and etcd and Kubernetes in the builds that
// have their drivers.
func listBackends() []leaseBackend {
	return append(append(leaseBackends(),
		leaseBackend{name: "redis8-key", setup: redisSetup(testenv.Redis8, "key")}), taggedBackends...)
}

// taggedBackends are the list backends of the drivers that only builds
// with their tags have (etcd, kubernetes): their test files add them.
var taggedBackends []leaseBackend

// forListBackends runs test on every listBackends entry, in parallel.
func forListBackends(t *testing.T, test func(t *testing.T, b leaseBackend)) {
	for _, b := range listBackends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b)
		})
	}
}

// claimHolder is the holder the claims of a backend's setup record: none
// for the SQL claims (direct UPDATEs, as the Elixir library writes), this
// test process for the others (a strategy's Acquire).
func claimHolder(b leaseBackend) string {
	if b.sql {
		return ""
	}
	host, _ := os.Hostname()
	return host + "/" + strconv.Itoa(os.Getpid())
}

// TestLeaseLs: with 3 IDs claimed for an hour and a hold process on a 30s
// lease (hold --key-env), ls shows the hold's ID with the process as its
// holder and the fingerprint of its key (nonce.Fingerprint; the claims,
// which record none, "-"), and counts
// 4 held, 508 free, 1 expiring under --expiring 40m (the hour-long claims
// are not); the table says the same as --json; the default --expiring is
// 30m (30s for kubernetes, whose default lease is 1m); after SIGTERM the
// released ID is free again and the summary counts 3.
func TestLeaseLs(t *testing.T) {
	forListBackends(t, func(t *testing.T, b leaseBackend) {
		flags, claim := b.setup(t)
		claim(t, 3)
		key := "ls-test-key-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-0123456789abcdef"
		p := startHoldEnv(t, []string{"ONCE_TEST_HOLD_KEY=" + key}, append(flags, append(shortLease, "--key-env", "ONCE_TEST_HOLD_KEY")...)...)
		id := p.machineID(t)
		under := []string{"--expiring", "40m"}
		rows, pool := lsPool(t, append(flags, under...))
		if pool.Held != 4 || pool.Free != 508 || pool.Expiring != 1 || pool.ExpiringUnderMS != (40*time.Minute).Milliseconds() {
			t.Fatalf("ls during hold: held %d, free %d, expiring %d under %dms; want 4, 508, 1 under 40m",
				pool.Held, pool.Free, pool.Expiring, pool.ExpiringUnderMS)
		}
		wantUnder := 30 * time.Minute
		if b.name == "kubernetes" {
			wantUnder = 30 * time.Second
		}
		if _, def := lsPool(t, flags); def.ExpiringUnderMS != wantUnder.Milliseconds() {
			t.Errorf("ls: expiring under %dms by default, want %v", def.ExpiringUnderMS, wantUnder)
		}
		if r := rows[id]; !r.held || !r.expiring || r.holder != holderOf(p) || r.ttl < 10*time.Second || r.ttl > 31*time.Second {
			t.Errorf("ls row %d during hold: %+v, want held by %s, about 30s left, expiring", id, r, holderOf(p))
		}
		wantKey, err := nonce.Fingerprint([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		if rows[id].key != wantKey {
			t.Errorf("ls row %d during hold --key-env: key fingerprint %q, want %q (nonce.Fingerprint of the key)", id, rows[id].key, wantKey)
		}
		for claimed := range 3 {
			if r := rows[claimed]; r.key != "" {
				t.Errorf("ls row %d (claimed without a key): key fingerprint %q, want none", claimed, r.key)
			}
			if r := rows[claimed]; !r.held || r.expiring || r.holder != claimHolder(b) || r.ttl < 50*time.Minute {
				t.Errorf("ls row %d (claimed for an hour or more): %+v, want held by %q, not expiring", claimed, r, claimHolder(b))
			}
		}
		wantExpiring := 4 // the hour-long claims too
		if b.sql {
			wantExpiring = 1 // the SQL claims run to 2999
		}
		if _, pool := lsPool(t, append(flags, "--expiring", "2h")); pool.Expiring != wantExpiring {
			t.Errorf("ls --expiring 2h: %d expiring, want %d", pool.Expiring, wantExpiring)
		}

		text := runBin(t, append(append([]string{"lease", "ls"}, flags...), under...)...)
		lines := text.lines()
		if text.code != 0 || text.stderr != "" || len(lines) != 6 {
			t.Fatalf("lease ls: %v\nwant a header, 4 lines and the summary", text)
		}
		if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID STATE TTL FINGERPRINT TOKEN HOLDER" {
			t.Errorf("lease ls header %q", lines[0])
		}
		want := map[int]string{0: "held", 1: "held", 2: "held", id: "expiring"}
		for _, l := range lines[1:5] {
			f := strings.Fields(l)
			n, err := strconv.Atoi(f[0])
			if err != nil || len(f) != 6 || want[n] != f[1] || f[3] != dash(rows[n].key) || f[4] != rows[n].token || f[5] != dash(rows[n].holder) {
				t.Errorf("lease ls line %q, want ID %s with key fingerprint %s, token %s and holder %q", l, want[n], dash(rows[n].key), rows[n].token, rows[n].holder)
			}
		}
		if lines[5] != "held 4, free 508, expiring 1 (TTL under 40m0s)" {
			t.Errorf("lease ls summary %q", lines[5])
		}

		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Fatalf("hold after SIGTERM: exit %d, stderr %s", code, p.errb.String())
		}
		rows = lsAfterRelease(t, b, flags, func(rows []lsRow) bool { return !rows[id].held })
		if _, pool := lsPool(t, flags); rows[id].held || pool.Held != 3 || pool.Free != 509 || pool.Expiring != 0 {
			t.Errorf("ls after the release: machine ID %d %+v, held %d, free %d, expiring %d; want it free and 3, 509, 0",
				id, rows[id], pool.Held, pool.Free, pool.Expiring)
		}
	})
}

// TestLeaseLsEmpty: on a pool nobody holds, ls prints the summary only;
// --json an empty list, not null; a negative --expiring is a usage error.
func TestLeaseLsEmpty(t *testing.T) {
	path := testenv.SQLitePath(t)
	flags := []string{"--driver", "sqlite", "--dsn", path}
	mustCLI(t, "", append([]string{"lease", "migrate"}, flags...)...)
	if got := mustCLI(t, "", append([]string{"lease", "ls"}, flags...)...); len(got) != 1 || got[0] != "held 0, free 512, expiring 0 (TTL under 30m0s)" {
		t.Errorf("lease ls of an empty pool: %q", got)
	}
	want := `{"capacity":512,"held":0,"free":512,"expiring":0,"expiring_under_ms":60000,"leases":[]}`
	if got := mustCLI(t, "", append([]string{"lease", "ls", "--json", "--expiring", "1m"}, flags...)...); len(got) != 1 || got[0] != want {
		t.Errorf("lease ls --json of an empty pool: %q, want %s", got, want)
	}
	if r := cli("", append([]string{"lease", "ls", "--expiring", "-1s"}, flags...)...); r.code != exitUsage || !strings.Contains(r.stderr, "--expiring -1s") {
		t.Errorf("lease ls --expiring -1s: %v", r)
	}
}

// TestDriverDefaults: each driver's default lease duration (which hold's
// duration checks and ls's --expiring use) is the one its strategy asks
// the lease manager for.
func TestDriverDefaults(t *testing.T) {
	dead := testenv.DeadAddr(t)
	sqlite := filepath.Join(t.TempDir(), "leases.db")
	if err := os.WriteFile(sqlite, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dsns := map[string]string{
		"postgres": "postgres://u@" + dead + "/db", "mysql": "u@tcp(" + dead + ")/db", "sqlite": sqlite,
		"redis": dead,
	}
	for name, flags := range deadBackends(t) { // etcd, kubernetes
		if _, ok := dsns[name]; !ok {
			dsns[name] = flagValue(flags, "--dsn")
		}
	}
	for _, name := range coord.Names() {
		dsn, ok := dsns[name]
		if !ok {
			t.Errorf("driver %s: no DSN to test it with", name)
			continue
		}
		bf := &backendFlags{fs: newFlagSet(&env{}, "test"), driver: name, dsn: dsn}
		if name == "redis" {
			bf.mode = "key"
		}
		be, err := bf.open(t.Context(), false)
		if err != nil {
			t.Errorf("driver %s: %v", name, err)
			continue
		}
		want := driver.DefaultLeaseDuration
		if d, ok := be.Strategy.(driver.DurationDefaulter); ok {
			want = d.DefaultLeaseDuration()
		}
		if got := bf.defaultDuration(); got != want {
			t.Errorf("driver %s: default lease %v, its strategy's %v", name, got, want)
		}
		be.Close()
	}
}
