package sqllease_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// elixirSQL is the Elixir NoNoncense library's SQL lease strategy
// (lib/no_noncense/machine_id/strategy/sql_lease.ex) as Ecto renders it
// for Postgrex and MyXQL. Every statement names its columns: a column it
// does not know (holder) is neither read nor written. NoNoncense supports
// PostgreSQL and MySQL only; the SQLite statements have the same shape
// with SQLite's clock in the table's text format, as ecto_sqlite3 would
// render them with a fragment for the clock.
type elixirSQL struct {
	// sel() -> id, token, expires_at, lock_version: up to 5 rows with
	// expires_at < now in ID order (acquire/2).
	sel string
	// claim(token, ms, id, lock_version): claim/4, guarded by lock_version.
	claim string
	// renew(ms, id, token): renew/3, matched by token.
	renew string
	// release(id, token): release/2, expires_at = now.
	release string
}

func elixirStatements(d migrations.Dialect, table string) elixirSQL {
	switch d {
	case migrations.Postgres:
		t := `"` + table + `"`
		return elixirSQL{
			sel: `SELECT n0."id", n0."token", n0."expires_at", n0."lock_version" FROM ` + t + ` AS n0 ` +
				`WHERE (n0."expires_at" < CURRENT_TIMESTAMP(6)) ORDER BY n0."id" LIMIT 5`,
			claim: `UPDATE ` + t + ` AS n0 SET "token" = $1, "expires_at" = CURRENT_TIMESTAMP(6)::timestamp + ($2::numeric * interval '1 millisecond'), ` +
				`"lock_version" = n0."lock_version" + 1 WHERE ((n0."id" = $3) AND (n0."lock_version" = $4))`,
			renew: `UPDATE ` + t + ` AS n0 SET "expires_at" = CURRENT_TIMESTAMP(6)::timestamp + ($1::numeric * interval '1 millisecond'), ` +
				`"lock_version" = n0."lock_version" + 1 WHERE ((n0."id" = $2) AND (n0."token" = $3))`,
			release: `UPDATE ` + t + ` AS n0 SET "expires_at" = CURRENT_TIMESTAMP(6), "lock_version" = n0."lock_version" + 1 ` +
				`WHERE ((n0."id" = $1) AND (n0."token" = $2))`,
		}
	case migrations.MySQL:
		t := "`" + table + "`"
		return elixirSQL{
			sel: "SELECT n0.`id`, n0.`token`, n0.`expires_at`, n0.`lock_version` FROM " + t + " AS n0 " +
				"WHERE (n0.`expires_at` < CURRENT_TIMESTAMP(6)) ORDER BY n0.`id` LIMIT 5",
			claim: "UPDATE " + t + " AS n0 SET n0.`token` = ?, n0.`expires_at` = date_add(CURRENT_TIMESTAMP(6), INTERVAL (? * 1000) microsecond), " +
				"n0.`lock_version` = n0.`lock_version` + 1 WHERE ((n0.`id` = ?) AND (n0.`lock_version` = ?))",
			renew: "UPDATE " + t + " AS n0 SET n0.`expires_at` = date_add(CURRENT_TIMESTAMP(6), INTERVAL (? * 1000) microsecond), " +
				"n0.`lock_version` = n0.`lock_version` + 1 WHERE ((n0.`id` = ?) AND (n0.`token` = ?))",
			release: "UPDATE " + t + " AS n0 SET n0.`expires_at` = CURRENT_TIMESTAMP(6), n0.`lock_version` = n0.`lock_version` + 1 " +
				"WHERE ((n0.`id` = ?) AND (n0.`token` = ?))",
		}
	}
	t := `"` + table + `"`
	const now = `strftime('%Y-%m-%dT%H:%M:%f000Z', 'now')`
	const plus = `strftime('%Y-%m-%dT%H:%M:%f000Z', 'now', '+' || (? / 1000.0) || ' seconds')`
	return elixirSQL{
		sel: `SELECT n0."id", n0."token", n0."expires_at", n0."lock_version" FROM ` + t + ` AS n0 ` +
			`WHERE (n0."expires_at" < ` + now + `) ORDER BY n0."id" LIMIT 5`,
		claim: `UPDATE ` + t + ` AS n0 SET "token" = ?, "expires_at" = ` + plus + `, ` +
			`"lock_version" = n0."lock_version" + 1 WHERE ((n0."id" = ?) AND (n0."lock_version" = ?))`,
		renew: `UPDATE ` + t + ` AS n0 SET "expires_at" = ` + plus + `, ` +
			`"lock_version" = n0."lock_version" + 1 WHERE ((n0."id" = ?) AND (n0."token" = ?))`,
		release: `UPDATE ` + t + ` AS n0 SET "expires_at" = ` + now + `, "lock_version" = n0."lock_version" + 1 ` +
			`WHERE ((n0."id" = ?) AND (n0."token" = ?))`,
	}
}

// elixirAcquire replays the Elixir library's acquire: up to 5 rows with
// expires_at < CURRENT_TIMESTAMP(6) in ID order, then a claim of each
// guarded by lock_version, with expires_at = CURRENT_TIMESTAMP(6) + the
// lease in milliseconds. It returns the machine ID claimed, or -1.
func elixirAcquire(ctx context.Context, db *sql.DB, d migrations.Dialect, table string, ms int64) (int, error) {
	id, _, err := elixirAcquireToken(ctx, db, d, table, ms)
	return id, err
}

// elixirAcquireToken is elixirAcquire, also returning the token claimed.
func elixirAcquireToken(ctx context.Context, db *sql.DB, d migrations.Dialect, table string, ms int64) (int, []byte, error) {
	q := elixirStatements(d, table)
	rows, err := db.QueryContext(ctx, q.sel)
	if err != nil {
		return -1, nil, err
	}
	type row struct{ id, lockVersion int64 }
	var free []row
	for rows.Next() {
		var r row
		var token, exp any
		if err := rows.Scan(&r.id, &token, &exp, &r.lockVersion); err != nil {
			rows.Close()
			return -1, nil, err
		}
		free = append(free, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return -1, nil, err
	}
	for _, r := range free {
		token := make([]byte, 16)
		rand.Read(token)
		res, err := db.ExecContext(ctx, q.claim, token, ms, r.id, r.lockVersion)
		if err != nil {
			return -1, nil, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return int(r.id), token, nil
		}
	}
	return -1, nil, nil
}

// elixirUpdate runs one of the Elixir library's renew or release
// statements and returns the rows it matched (1: done; 0: lost).
func elixirUpdate(ctx context.Context, db *sql.DB, query string, args ...any) (int64, error) {
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
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
		fix  string // the setting the message says to change
	}{
		{"postgres/east", migrations.Postgres, "Asia/Tokyo", true, func(t *testing.T) *sql.DB { return pgDatabaseInZone(t, "Asia/Tokyo") }, "ALTER DATABASE"},
		{"postgres/west", migrations.Postgres, "America/New_York", false, func(t *testing.T) *sql.DB { return pgDatabaseInZone(t, "America/New_York") }, "ALTER DATABASE"},
		{"mysql/east", migrations.MySQL, "JST", true, func(t *testing.T) *sql.DB { return privateMariaDB(t, "Asia/Tokyo") }, "default_time_zone"},
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
				var l driver.Lease
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
				var l driver.Lease
				if l, err = s.Acquire(ctx, time.Hour); err == nil {
					t.Fatalf("default zone %s: the Elixir library's SQL holds machine ID 0 for 1h; Go then acquired %d (double hold: %v)",
						c.zone, l.MachineID, l.MachineID == id)
				}
			}
			t.Logf("refused: %v", err)
			if msg := err.Error(); !errors.Is(err, driver.ErrConfig) || !strings.Contains(msg, c.zone) ||
				!strings.Contains(msg, "Elixir") || !strings.Contains(msg, "UTC") || !strings.Contains(msg, "GoOnly") || !strings.Contains(msg, c.fix) {
				t.Errorf("Acquire on a shared table in %s: %v; want ErrConfig naming the zone, the Elixir library, UTC, GoOnly and %s", c.zone, err, c.fix)
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
// is refused even in winter, when its offset is 0. The Elixir library's
// table name counts with or without its schema.
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
	if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "Asia/Tokyo") {
		t.Errorf("Acquire on a table declared shared, default zone Asia/Tokyo: %v; want ErrConfig naming the zone", err)
	}
	if _, err := newStrategy(t, tokyo, sqllease.Options{Table: sqllease.ElixirTable, Sharing: sqllease.GoOnly}).Acquire(ctx, time.Hour); err != nil {
		t.Errorf("Acquire on %s declared Go-only: %v", sqllease.ElixirTable, err)
	}

	london := pgDatabaseInZone(t, "Europe/London")
	if err := migrations.Apply(ctx, london, d, sqllease.ElixirTable); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{sqllease.ElixirTable, "public." + sqllease.ElixirTable} {
		_, err = newStrategy(t, london, sqllease.Options{Table: table}).Acquire(ctx, time.Hour)
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "Europe/London") {
			t.Errorf("Acquire on shared table %s, default zone Europe/London: %v; want ErrConfig naming the zone", table, err)
		}
	}
}
