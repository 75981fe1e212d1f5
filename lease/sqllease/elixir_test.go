package sqllease_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// elixirAcquire replays the Elixir NoNoncense library's SQL lease acquire
// (lib/no_noncense/machine_id/strategy/sql_lease.ex, acquire/2 and
// claim/4) as Ecto renders it for Postgrex and MyXQL: up to 5 rows with
// expires_at < CURRENT_TIMESTAMP(6) in ID order, then a claim of each
// guarded by lock_version, with expires_at = CURRENT_TIMESTAMP(6) + the
// lease in milliseconds. It returns the machine ID claimed, or -1.
func elixirAcquire(ctx context.Context, db *sql.DB, d migrations.Dialect, table string, ms int64) (int, error) {
	var sel, claim string
	switch d {
	case migrations.Postgres:
		sel = `SELECT n0."id", n0."token", n0."expires_at", n0."lock_version" FROM "` + table + `" AS n0 ` +
			`WHERE (n0."expires_at" < CURRENT_TIMESTAMP(6)) ORDER BY n0."id" LIMIT 5`
		claim = `UPDATE "` + table + `" AS n0 SET "token" = $1, "expires_at" = CURRENT_TIMESTAMP(6)::timestamp + ($2::numeric * interval '1 millisecond'), ` +
			`"lock_version" = n0."lock_version" + 1 WHERE ((n0."id" = $3) AND (n0."lock_version" = $4))`
	case migrations.MySQL:
		sel = "SELECT n0.`id`, n0.`token`, n0.`expires_at`, n0.`lock_version` FROM `" + table + "` AS n0 " +
			"WHERE (n0.`expires_at` < CURRENT_TIMESTAMP(6)) ORDER BY n0.`id` LIMIT 5"
		claim = "UPDATE `" + table + "` AS n0 SET n0.`token` = ?, n0.`expires_at` = date_add(CURRENT_TIMESTAMP(6), INTERVAL (? * 1000) microsecond), " +
			"n0.`lock_version` = n0.`lock_version` + 1 WHERE ((n0.`id` = ?) AND (n0.`lock_version` = ?))"
	}
	rows, err := db.QueryContext(ctx, sel)
	if err != nil {
		return -1, err
	}
	type row struct{ id, lockVersion int64 }
	var free []row
	for rows.Next() {
		var r row
		var token, exp any
		if err := rows.Scan(&r.id, &token, &exp, &r.lockVersion); err != nil {
			rows.Close()
			return -1, err
		}
		free = append(free, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return -1, err
	}
	for _, r := range free {
		token := make([]byte, 16)
		rand.Read(token)
		res, err := db.ExecContext(ctx, claim, token, ms, r.id, r.lockVersion)
		if err != nil {
			return -1, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return int(r.id), nil
		}
	}
	return -1, nil
}

// pgDatabaseInZone creates a PostgreSQL database whose default time zone
// (ALTER DATABASE ... SET timezone) is zone, and opens it with a DSN that
// sets none, as Postgrex connects.
func pgDatabaseInZone(t *testing.T, zone string) *sql.DB {
	t.Helper()
	admin, ctx := openDB(t, migrations.Postgres), ctxT(t)
	name := testenv.Unique(t, "tz")
	for _, q := range []string{"CREATE DATABASE " + name, "ALTER DATABASE " + name + " SET timezone = '" + zone + "'"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { admin.ExecContext(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)") })
	dsn := testenv.PostgresDSN()
	i := strings.LastIndex(dsn, "/")
	j := strings.IndexByte(dsn[i:], '?')
	if j < 0 {
		j = len(dsn) - i
	}
	db, err := sql.Open("pgx", dsn[:i+1]+name+dsn[i+j:])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var got string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('TimeZone')").Scan(&got); err != nil || got != zone {
		t.Fatalf("session time zone %q, %v; want the database default %q", got, err, zone)
	}
	return db
}

// privateMariaDB starts a MariaDB server of its own (the machine's
// binaries, a fresh data directory, a free loopback port, no grant
// tables) whose operating-system time zone is tz, so that its default
// time zone (time_zone = SYSTEM) is tz, and stops it when t ends. The
// shared server's configuration stays untouched.
func privateMariaDB(t *testing.T, tz string) *sql.DB {
	t.Helper()
	install, err1 := exec.LookPath("mariadb-install-db")
	server, err2 := exec.LookPath("mariadbd")
	if err1 != nil || err2 != nil {
		testenv.Unavailable(t, "mariadb-install-db or mariadbd not installed")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user="+currentUser(),
		"--auth-root-authentication-method=normal", "--skip-test-db").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(server, "--no-defaults", "--datadir="+data, "--port="+port, "--bind-address=127.0.0.1",
		"--socket="+filepath.Join(dir, "sock"), "--skip-grant-tables", "--user="+currentUser(), "--skip-log-bin",
		"--innodb-buffer-pool-size=16M", "--pid-file="+filepath.Join(dir, "pid"))
	cmd.Env = append(os.Environ(), "TZ="+tz)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/")
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	for deadline := time.Now().Add(60 * time.Second); db.PingContext(ctx) != nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("private MariaDB did not start within 60 s")
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/test"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}

// TestElixirSharedZone: on a database whose default time zone is not UTC,
// the Elixir library (its SQL replayed) and this strategy disagree about
// which rows are free: east of UTC (Asia/Tokyo) the Elixir side takes an
// ID Go holds, west of UTC (America/New_York) Go takes an ID the Elixir
// side holds. On such a database the strategy refuses a table shared with
// the Elixir library (named no_noncense_leases), saying why and how to
// fix it; a Go-only table there is unaffected.
func TestElixirSharedZone(t *testing.T) {
	for _, c := range []struct {
		name string
		d    migrations.Dialect
		zone string // the database's default, as reported
		east bool
		open func(t *testing.T) *sql.DB
	}{
		{"postgres/east", migrations.Postgres, "Asia/Tokyo", true, func(t *testing.T) *sql.DB { return pgDatabaseInZone(t, "Asia/Tokyo") }},
		{"postgres/west", migrations.Postgres, "America/New_York", false, func(t *testing.T) *sql.DB { return pgDatabaseInZone(t, "America/New_York") }},
		{"mysql/east", migrations.MySQL, "JST", true, func(t *testing.T) *sql.DB { return privateMariaDB(t, "Asia/Tokyo") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, db, ctx := c.d, c.open(t), ctxT(t)
			if err := migrations.Apply(ctx, db, d, sqllease.ElixirTable); err != nil {
				t.Fatal(err)
			}
			s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: sqllease.ElixirTable, LowestFirst: true, Candidates: 1})
			const hour = int64(time.Hour / time.Millisecond)
			var err error
			if c.east {
				var l lease.Lease
				if l, err = s.Acquire(ctx, time.Hour); err == nil {
					id, eerr := elixirAcquire(ctx, db, d, sqllease.ElixirTable, hour)
					t.Fatalf("default zone %s: Go acquired machine ID %d for 1h; the Elixir library's SQL then claimed %d, %v (double hold: %v)",
						c.zone, l.MachineID, id, eerr, id == l.MachineID)
				}
			} else {
				id, eerr := elixirAcquire(ctx, db, d, sqllease.ElixirTable, hour)
				if eerr != nil || id != 0 {
					t.Fatalf("the Elixir library's SQL claimed %d, %v; want 0", id, eerr)
				}
				var l lease.Lease
				if l, err = s.Acquire(ctx, time.Hour); err == nil {
					t.Fatalf("default zone %s: the Elixir library's SQL holds machine ID 0 for 1h; Go then acquired %d (double hold: %v)",
						c.zone, l.MachineID, l.MachineID == id)
				}
			}
			t.Logf("refused: %v", err)
			if msg := err.Error(); !errors.Is(err, lease.ErrConfig) || !strings.Contains(msg, c.zone) ||
				!strings.Contains(msg, "Elixir") || !strings.Contains(msg, "UTC") || !strings.Contains(msg, "GoOnly") {
				t.Errorf("Acquire on a shared table in %s: %v; want ErrConfig naming the zone, the Elixir library, UTC and GoOnly", c.zone, err)
			}
			if err := migrations.Apply(ctx, db, d, ""); err != nil {
				t.Fatal(err)
			}
			if l, err := newStrategy(t, db, sqllease.Options{Dialect: d}).Acquire(ctx, time.Hour); err != nil {
				t.Errorf("Acquire on a Go-only table in %s: %+v, %v", c.zone, l, err)
			}
		})
	}
}

// TestElixirSharedUTC: on a database whose default time zone is UTC, this
// strategy and the Elixir library's SQL (replayed) agree on one table:
// neither takes an ID the other holds.
func TestElixirSharedUTC(t *testing.T) {
	for _, d := range []migrations.Dialect{migrations.Postgres, migrations.MySQL} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := openDB(t, d), ctxT(t)
			table := newTable(t, db, d)
			s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, Sharing: sqllease.SharedWithElixir, LowestFirst: true, Candidates: 1})
			first, err := s.Acquire(ctx, time.Hour)
			if err != nil || first.MachineID != 0 {
				t.Fatalf("Go Acquire: %+v, %v; want machine ID 0", first, err)
			}
			if id, err := elixirAcquire(ctx, db, d, table, int64(time.Hour/time.Millisecond)); err != nil || id != 1 {
				t.Fatalf("Elixir acquire while Go holds 0: %d, %v; want 1", id, err)
			}
			if l, err := s.Acquire(ctx, time.Hour); err != nil || l.MachineID != 2 {
				t.Fatalf("Go Acquire while 0 and 1 are held: %+v, %v; want machine ID 2", l, err)
			}
		})
	}
}

// TestElixirSharing: Options.Sharing decides, whatever the name: a table
// declared shared is refused on a database whose default zone is Asia/Tokyo,
// one declared Go-only is not. Zones are compared by name: Europe/London
// is refused even in winter, when its offset is 0.
func TestElixirSharing(t *testing.T) {
	ctx := ctxT(t)
	d := migrations.Postgres
	tokyo := pgDatabaseInZone(t, "Asia/Tokyo")
	for _, table := range []string{"declared_shared", sqllease.ElixirTable} {
		if err := migrations.Apply(ctx, tokyo, d, table); err != nil {
			t.Fatal(err)
		}
	}
	_, err := newStrategy(t, tokyo, sqllease.Options{Table: "declared_shared", Sharing: sqllease.SharedWithElixir}).Acquire(ctx, time.Hour)
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "Asia/Tokyo") {
		t.Errorf("Acquire on a table declared shared, default zone Asia/Tokyo: %v; want ErrConfig naming the zone", err)
	}
	if _, err := newStrategy(t, tokyo, sqllease.Options{Table: sqllease.ElixirTable, Sharing: sqllease.GoOnly}).Acquire(ctx, time.Hour); err != nil {
		t.Errorf("Acquire on %s declared Go-only: %v", sqllease.ElixirTable, err)
	}

	london := pgDatabaseInZone(t, "Europe/London")
	if err := migrations.Apply(ctx, london, d, sqllease.ElixirTable); err != nil {
		t.Fatal(err)
	}
	_, err = newStrategy(t, london, sqllease.Options{Table: sqllease.ElixirTable}).Acquire(ctx, time.Hour)
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "Europe/London") {
		t.Errorf("Acquire on a shared table, default zone Europe/London: %v; want ErrConfig naming the zone", err)
	}
}
