package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/migrations"
)

// leaseBackend is a coordinator the lease process tests run against.
type leaseBackend struct {
	name string
	sql  bool
	// setup prepares a fresh, empty namespace (table or NAME), registers its
	// cleanup, and returns the CLI flags that select it and a function that
	// takes n machine IDs far into the future, as other holders would.
	setup func(t *testing.T) (flags []string, claim func(t *testing.T, n int))
}

func leaseBackends() []leaseBackend {
	return []leaseBackend{
		{name: "postgres", sql: true, setup: func(t *testing.T) ([]string, func(*testing.T, int)) {
			return setupSQL(t, testenv.Postgres(t), migrations.Postgres, "postgres", testenv.PostgresDSN())
		}},
		{name: "mariadb", sql: true, setup: func(t *testing.T) ([]string, func(*testing.T, int)) {
			return setupSQL(t, testenv.MySQL(t), migrations.MySQL, "mysql", testenv.MySQLDSN())
		}},
		{name: "sqlite", sql: true, setup: func(t *testing.T) ([]string, func(*testing.T, int)) {
			path := testenv.SQLitePath(t)
			db, err := sql.Open(coord.SQLiteDriver, "file:"+path+"?_pragma=busy_timeout(10000)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return setupSQL(t, db, migrations.SQLite, "sqlite", path)
		}},
		{name: "redis7-key", setup: redisSetup(testenv.Redis7, "key")},
		{name: "redis8-hash", setup: redisSetup(testenv.Redis8, "hash")},
		{name: "valkey9-hash", setup: redisSetup(testenv.Valkey9, "hash")},
		{name: "valkey9-key", setup: redisSetup(testenv.Valkey9, "key")},
	}
}

// setupSQL creates a table with "once lease migrate" and claims rows
// 0..n-1 with direct UPDATEs.
func setupSQL(t *testing.T, db *sql.DB, d migrations.Dialect, driver, dsn string) ([]string, func(*testing.T, int)) {
	st := setupSQLTable(t, db, d, driver, dsn)
	return st.flags, st.claim
}

// sqlTable is a lease table made by "once lease migrate" that a test edits
// with direct statements, as other holders would.
type sqlTable struct {
	flags []string // the CLI flags that select it
	db    *sql.DB
	d     migrations.Dialect
	q     string // the quoted table name
}

// setupSQLTable creates a uniquely named table with "once lease migrate"
// and drops it when the test ends.
func setupSQLTable(t *testing.T, db *sql.DB, d migrations.Dialect, driver, dsn string) *sqlTable {
	table := testenv.Unique(t, "cli")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := migrations.Down(ctx, db, d, table); err != nil {
			t.Logf("dropping %s: %v", table, err)
		}
	})
	flags := []string{"--driver", driver, "--dsn", dsn, "--table", table}
	if r := runBin(t, append([]string{"lease", "migrate"}, flags...)...); r.code != 0 || r.stdout != "" {
		t.Fatalf("lease migrate: %v", r)
	}
	q, err := migrations.QuoteTable(d, table)
	if err != nil {
		t.Fatal(err)
	}
	return &sqlTable{flags: flags, db: db, d: d, q: q}
}

// claim takes rows 0..n-1 far into the future, with a token of its own.
func (st *sqlTable) claim(t *testing.T, n int) {
	t.Helper()
	var stmt string
	switch st.d {
	case migrations.Postgres:
		stmt = "UPDATE " + st.q + " SET token = decode(md5(id::text), 'hex'), expires_at = TIMESTAMP '2999-01-01 00:00:00', lock_version = lock_version + 1 WHERE id < $1"
	case migrations.MySQL:
		stmt = "UPDATE " + st.q + " SET token = RANDOM_BYTES(16), expires_at = '2999-01-01 00:00:00', lock_version = lock_version + 1 WHERE id < ?"
	default:
		stmt = "UPDATE " + st.q + " SET token = randomblob(16), expires_at = '2999-01-01T00:00:00.000000Z', lock_version = lock_version + 1 WHERE id < ?"
	}
	res, err := st.db.ExecContext(context.Background(), stmt, n)
	if err != nil {
		t.Fatalf("claiming %d rows: %v", n, err)
	}
	if got, _ := res.RowsAffected(); got != int64(n) {
		t.Fatalf("claimed %d rows, want %d", got, n)
	}
}

// setExpiry gives row id a new token of another holder and the expiry at
// (UTC): a past one is a lease that holder released (or let expire) then, a
// future one a lease it holds until then.
func (st *sqlTable) setExpiry(t *testing.T, id int, at time.Time) {
	t.Helper()
	at = at.UTC()
	var stmt string
	var exp any
	switch st.d {
	case migrations.Postgres:
		stmt = "UPDATE " + st.q + " SET token = decode(md5(random()::text), 'hex'), expires_at = $1::timestamp, lock_version = lock_version + 1 WHERE id = $2"
		exp = at.Format("2006-01-02 15:04:05.000000")
	case migrations.MySQL:
		stmt = "UPDATE " + st.q + " SET token = RANDOM_BYTES(16), expires_at = ?, lock_version = lock_version + 1 WHERE id = ?"
		exp = at.Format("2006-01-02 15:04:05.000000")
	default:
		stmt = "UPDATE " + st.q + " SET token = randomblob(16), expires_at = ?, lock_version = lock_version + 1 WHERE id = ?"
		exp = at.Format("2006-01-02T15:04:05.000000Z")
	}
	res, err := st.db.ExecContext(context.Background(), stmt, exp, id)
	if err != nil {
		t.Fatalf("setting the expiry of row %d: %v", id, err)
	}
	if got, _ := res.RowsAffected(); got != 1 {
		t.Fatalf("setting the expiry of row %d: %d rows updated", id, got)
	}
}

// sqlTables are the SQL coordinators of the hand-off and CMD tests.
func sqlTables() []struct {
	name  string
	setup func(t *testing.T) *sqlTable
} {
	return []struct {
		name  string
		setup func(t *testing.T) *sqlTable
	}{
		{"postgres", func(t *testing.T) *sqlTable {
			return setupSQLTable(t, testenv.Postgres(t), migrations.Postgres, "postgres", testenv.PostgresDSN())
		}},
		{"mariadb", func(t *testing.T) *sqlTable {
			return setupSQLTable(t, testenv.MySQL(t), migrations.MySQL, "mysql", testenv.MySQLDSN())
		}},
		{"sqlite", func(t *testing.T) *sqlTable {
			path := testenv.SQLitePath(t)
			db, err := sql.Open(coord.SQLiteDriver, "file:"+path+"?_pragma=busy_timeout(10000)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return setupSQLTable(t, db, migrations.SQLite, "sqlite", path)
		}},
	}
}

// redisSetup returns the setup of a Redis-protocol server in mode; claims
// go through the strategy with a TTL of an hour.
func redisSetup(server testenv.Server, mode string) func(t *testing.T) ([]string, func(*testing.T, int)) {
	return func(t *testing.T) ([]string, func(*testing.T, int)) {
		addr := testenv.Redis(t, server)
		name := testenv.Unique(t, "cli")
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() {
			keys := []string{name}
			for id := range redislease.Capacity {
				keys = append(keys, "{"+name+"}:"+strconv.Itoa(id))
			}
			c.Del(context.Background(), keys...)
			c.Close()
		})
		m, err := redislease.ParseMode(mode)
		if err != nil {
			t.Fatal(err)
		}
		flags := []string{"--driver", "redis", "--mode", mode, "--dsn", "redis://" + addr + "/0", "--table", name}
		return flags, func(t *testing.T, n int) {
			t.Helper()
			s, err := redislease.New(c, redislease.Options{Mode: m, Name: name, LowestFirst: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if _, err := s.Acquire(context.Background(), time.Hour); err != nil {
					t.Fatalf("claim %d of %d: %v", i+1, n, err)
				}
			}
		}
	}
}

// lsRow is one machine ID as "lease ls --json" shows it.
type lsRow struct {
	held     bool
	released bool          // etcd: released, taken for its release hold
	expiring bool          // TTL under --expiring
	ttl      time.Duration // 0: unknown or free
	holder   string
	token    string // first 8 hex digits of SHA-256 of the token, "" when free
	key      string // key fingerprint, "" when unknown
}

// lsJSON is the output of "lease ls --json", as its help documents it.
type lsJSON struct {
	Capacity        int   `json:"capacity"`
	Held            int   `json:"held"`
	Free            int   `json:"free"`
	Expiring        int   `json:"expiring"`
	ExpiringUnderMS int64 `json:"expiring_under_ms"`
	Leases          []struct {
		MachineID   int    `json:"machine_id"`
		TTLMS       *int64 `json:"ttl_ms"`
		Expiring    bool   `json:"expiring"`
		Holder      string `json:"holder"`
		Fingerprint string `json:"fingerprint"`
		Token       string `json:"token"`
		Released    bool   `json:"released"`
	} `json:"leases"`
}

// ls runs "once lease ls --json" and checks and parses its output: one
// object whose counts agree with its leases, listed in ID order. It returns
// all 512 machine IDs, the free ones zero.
func ls(t *testing.T, flags []string) []lsRow {
	t.Helper()
	rows, _ := lsPool(t, flags)
	return rows
}

// lsIn is ls run in-process (run()), as the race detector sees it.
func lsIn(t *testing.T, flags []string) []lsRow {
	t.Helper()
	rows, _ := lsWith(t, func(args ...string) result { return cli("", args...) }, flags)
	return rows
}

// lsPool is ls that also returns the parsed object.
func lsPool(t *testing.T, flags []string) ([]lsRow, lsJSON) {
	t.Helper()
	return lsWith(t, func(args ...string) result { return runBin(t, args...) }, flags)
}

// lsWith runs "lease ls --json" with run.
func lsWith(t *testing.T, run func(args ...string) result, flags []string) ([]lsRow, lsJSON) {
	t.Helper()
	r := run(append(append([]string{"lease", "ls"}, flags...), "--json")...)
	if r.code != 0 || r.stderr != "" || len(r.lines()) != 1 {
		t.Fatalf("lease ls --json: %v", r)
	}
	var p lsJSON
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("lease ls --json: %v\n%s", err, r.stdout)
	}
	expiring := 0
	rows := make([]lsRow, 512)
	for i, l := range p.Leases {
		if l.MachineID < 0 || l.MachineID > 511 || (i > 0 && l.MachineID <= p.Leases[i-1].MachineID) {
			t.Fatalf("lease ls --json: machine IDs out of order or range: %s", r.stdout)
		}
		if len(l.Token) != 8 || hexFormat(l.Token) != l.Token {
			t.Fatalf("lease ls --json: token %q of machine ID %d", l.Token, l.MachineID)
		}
		if l.Fingerprint != "" && (len(l.Fingerprint) != 8 || hexFormat(l.Fingerprint) != l.Fingerprint) {
			t.Fatalf("lease ls --json: fingerprint %q of machine ID %d", l.Fingerprint, l.MachineID)
		}
		row := lsRow{held: true, released: l.Released, expiring: l.Expiring, holder: l.Holder, token: l.Token, key: l.Fingerprint}
		if l.TTLMS != nil {
			row.ttl = time.Duration(*l.TTLMS) * time.Millisecond
			if row.ttl <= 0 || l.Expiring != (row.ttl < time.Duration(p.ExpiringUnderMS)*time.Millisecond && !l.Released) {
				t.Fatalf("lease ls --json: machine ID %d: ttl_ms %d, expiring %v under %d ms", l.MachineID, *l.TTLMS, l.Expiring, p.ExpiringUnderMS)
			}
		} else if l.Expiring {
			t.Fatalf("lease ls --json: machine ID %d expiring without a TTL", l.MachineID)
		}
		if l.Expiring {
			expiring++
		}
		rows[l.MachineID] = row
	}
	if p.Capacity != 512 || p.Held != len(p.Leases) || p.Free != 512-p.Held || p.Expiring != expiring {
		t.Fatalf("lease ls --json: counts disagree with the leases listed: %s", r.stdout)
	}
	return rows, p
}

// hexFormat returns fp if it is lowercase hex digits, else "".
func hexFormat(fp string) string {
	for _, c := range fp {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return fp
}

// etcdReleaseHold is etcdlease.DefaultReleaseHold (set by the etcd tests,
// which build only with the etcd tag).
var etcdReleaseHold time.Duration

// releaseHold is how long after a release a backend may still show the ID
// held: Redis and etcd keep a released ID taken for their strategy's
// ReleaseHold (the hand-off guard, see their docs), SQL frees it at once.
func (b leaseBackend) releaseHold() time.Duration {
	switch {
	case b.sql:
		return 0
	case b.name == "etcd":
		return etcdReleaseHold
	}
	return redislease.DefaultReleaseHold
}

// lsAfterRelease runs ls until settled reports true of its rows, for up to
// the backend's release hold (plus a second for the server's expiry cycle,
// etcd's revoke tick), and returns the last rows: on SQL backends it looks
// once.
func lsAfterRelease(t *testing.T, b leaseBackend, flags []string, settled func([]lsRow) bool) []lsRow {
	t.Helper()
	deadline := time.Now().Add(b.releaseHold())
	if b.releaseHold() > 0 {
		deadline = deadline.Add(time.Second)
	}
	for {
		rows := ls(t, flags)
		if settled(rows) || time.Now().After(deadline) {
			return rows
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// heldIDs returns the held machine IDs.
func heldIDs(rows []lsRow) []int {
	var ids []int
	for id, r := range rows {
		if r.held {
			ids = append(ids, id)
		}
	}
	return ids
}

// holderOf is the holder a lease hold process records: the host name and
// its process ID (leasekit.Holder).
func holderOf(p *proc) string {
	host, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return host + "/" + strconv.Itoa(p.cmd.Process.Pid)
}
