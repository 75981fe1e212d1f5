package sqllease_test

import (
	"context"
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

// keylessTable creates a lease table with the expected columns and 512
// rows but no key on id, as CREATE TABLE AS (or a dump restored without
// its constraints, or an ORM) makes it, and drops it when t ends.
func keylessTable(t *testing.T, db *sql.DB, d migrations.Dialect) (table, quoted string) {
	t.Helper()
	ctx := ctxT(t)
	src := newTable(t, db, d)
	qsrc, _ := migrations.QuoteTable(d, src)
	table = testenv.Unique(t, "keyless")
	quoted, _ = migrations.QuoteTable(d, table)
	mustExecDB(t, db, "CREATE TABLE "+quoted+" AS SELECT * FROM "+qsrc)
	t.Cleanup(func() { db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+quoted) })
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quoted).Scan(&n); err != nil || n != 512 {
		t.Fatalf("keyless table: %d rows, %v", n, err)
	}
	return table, quoted
}

func mustExecDB(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(ctxT(t), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// duplicate adds a second row for every machine ID to a keyless table
// whose row 0 has been used before: on MySQL and SQLite by running
// migrations.Apply on it (documented as harmless at every start, its
// INSERT IGNORE / OR IGNORE ignores nothing without a key), on PostgreSQL
// (whose Apply needs the key for ON CONFLICT) by inserting them, as a
// restore of two dumps would.
func duplicate(t *testing.T, db *sql.DB, d migrations.Dialect, table, quoted string) {
	t.Helper()
	mustExecDB(t, db, "UPDATE "+quoted+" SET lock_version = 3 WHERE id = 0")
	if d == migrations.Postgres {
		mustExecDB(t, db, "INSERT INTO "+quoted+" SELECT n, NULL, TIMESTAMP '1970-01-01', 0 FROM generate_series(0, 511) AS n")
		return
	}
	migrations.Apply(ctxT(t), db, d, table) // refused once fixed: the duplicates are then inserted by hand
	var n int
	if err := db.QueryRowContext(ctxT(t), "SELECT COUNT(*) FROM "+quoted).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 512 {
		src := testenv.Unique(t, "dup")
		if err := migrations.Apply(ctxT(t), db, d, src); err != nil {
			t.Fatal(err)
		}
		defer migrations.Down(context.Background(), db, d, src)
		qsrc, _ := migrations.QuoteTable(d, src)
		mustExecDB(t, db, "INSERT INTO "+quoted+" (id, token, expires_at, lock_version) SELECT id, token, expires_at, lock_version FROM "+qsrc)
	}
}

// TestTableWithoutKey: a lease table whose id is not a unique key can
// hold two rows for one machine ID, and each is a lease: two managers
// both held machine ID 0. The strategy refuses such a table (ErrConfig
// naming the table and the SQL that fixes it) before its first claim,
// with or without duplicates yet, and accepts it once the key exists.
func TestTableWithoutKey(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		ctx := ctxT(t)
		table, quoted := keylessTable(t, db, d)
		opts := sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1}

		// No duplicates yet: refused all the same.
		s := newStrategy(t, db, opts)
		l, err := s.Acquire(ctx, time.Hour)
		if err == nil {
			s.Release(ctx, l)
		}
		wantKeyError(t, "keyless table", err, table, d)

		duplicate(t, db, d, table, quoted)
		a, err := startHolder(t, newStrategy(t, db, opts), 20*time.Second)
		if err == nil {
			b, err := startHolder(t, newStrategy(t, db, opts), 20*time.Second)
			if err != nil {
				t.Fatalf("keyless table with duplicates: the first manager holds machine ID %d; the second: %v", a.m.MachineID(), err)
			}
			doubleHold(t, "keyless table with duplicate ids", a, b)
			t.Fatalf("keyless table with duplicate ids accepted: machine IDs %d and %d", a.m.MachineID(), b.m.MachineID())
		}
		wantKeyError(t, "keyless table with duplicate ids", err, table, d)
		if !strings.Contains(err.Error(), "machine ID 0 ") {
			t.Errorf("error does not name the duplicated machine ID 0: %v", err)
		}
		if n := heldRows(t, db, quoted); n != 0 {
			t.Errorf("%d rows held after the refusal; want none (refused before the first claim)", n)
		}

		// Fixed as the message says: duplicates deleted, key added.
		mustExecDB(t, db, "DELETE FROM "+quoted+" WHERE lock_version = 0 AND id = 0")
		mustExecDB(t, db, "DELETE FROM "+quoted+" WHERE id > 0")
		if err := migrations.Apply(ctx, db, d, table); !errors.Is(err, migrations.ErrConfig) {
			t.Errorf("migrations.Apply on the keyless table: %v; want ErrConfig", err)
		}
		mustExecDB(t, db, "CREATE UNIQUE INDEX "+table+"_id_key ON "+quoted+" (id)")
		if err := migrations.Apply(ctx, db, d, table); err != nil {
			t.Fatalf("migrations.Apply once the key exists: %v", err)
		}
		a, err = startHolder(t, newStrategy(t, db, opts), 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		b, err := startHolder(t, newStrategy(t, db, opts), 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		doubleHold(t, "table with its key", a, b)
	})
}

// wantKeyError checks that err refuses table for its missing key, naming
// the table, on PostgreSQL the table it resolved to, and the statement
// that adds the key.
func wantKeyError(t *testing.T, what string, err error, table string, d migrations.Dialect) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted; want ErrConfig", what)
		return
	}
	msg := err.Error()
	if !errors.Is(err, driver.ErrConfig) || !strings.HasPrefix(msg, "sqllease: ") || !strings.Contains(msg, table) ||
		!strings.Contains(msg, "CREATE UNIQUE INDEX") {
		t.Errorf("%s: %v; want ErrConfig naming %s and CREATE UNIQUE INDEX", what, err, table)
		return
	}
	// On PostgreSQL the unqualified name resolved to public.<table>, which
	// the message adds; elsewhere the name is the table.
	if resolved := strings.Contains(msg, table+" resolved to public."+table); resolved != (d == migrations.Postgres) {
		t.Errorf("%s: %v; says where %s resolved: %v, want %v", what, err, table, resolved, d == migrations.Postgres)
	}
	t.Logf("%v: %s: %v", d, what, err)
}

// heldRows counts the rows of a table (quoted) whose token is set.
func heldRows(t *testing.T, db *sql.DB, quoted string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(ctxT(t), "SELECT COUNT(*) FROM "+quoted+" WHERE token IS NOT NULL").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
