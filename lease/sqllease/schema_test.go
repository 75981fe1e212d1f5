package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// pgSchemas creates n fresh PostgreSQL schemas, each with a lease table
// named table, and drops them when t ends.
func pgSchemas(t *testing.T, db *sql.DB, table string, n int) []string {
	t.Helper()
	var out []string
	for range n {
		s := testenv.Unique(t, "sch")
		mustExecDB(t, db, "CREATE SCHEMA "+s)
		t.Cleanup(func() { db.ExecContext(context.Background(), "DROP SCHEMA "+s+" CASCADE") })
		if err := migrations.Apply(ctxT(t), db, migrations.Postgres, s+"."+table); err != nil {
			t.Fatalf("migrations.Apply %s.%s: %v", s, table, err)
		}
		out = append(out, s)
	}
	return out
}

// TestSchemaQualified: on PostgreSQL a schema-qualified table name
// (schema.table) is accepted by migrations.Apply and the strategy, which
// then leases from that schema whatever the session's search_path.
func TestSchemaQualified(t *testing.T) {
	db, ctx := openDB(t, migrations.Postgres), ctxT(t)
	schemas := pgSchemas(t, db, "leases", 2)
	qualified := schemas[0] + ".leases"
	s, err := sqllease.New(db, sqllease.Options{Table: qualified, LowestFirst: true})
	if err != nil {
		t.Fatalf("New with Table %q: %v", qualified, err)
	}
	l, err := s.Acquire(ctx, time.Hour)
	if err != nil || l.MachineID != 0 {
		t.Fatalf("Acquire on %s: %+v, %v", qualified, l, err)
	}
	if got := s.Table(); got != qualified {
		t.Errorf("Table() = %q; want %q", got, qualified)
	}
	var held int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+qualified+" WHERE token IS NOT NULL").Scan(&held); err != nil || held != 1 {
		t.Errorf("%s: %d rows held, %v; want 1", qualified, held, err)
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+schemas[1]+".leases WHERE token IS NOT NULL").Scan(&held); err != nil || held != 0 {
		t.Errorf("%s.leases: %d rows held, %v; want 0", schemas[1], held, err)
	}
	// MySQL and SQLite take no schema: the DSN's database (the file) decides.
	for _, d := range []migrations.Dialect{migrations.MySQL, migrations.SQLite} {
		if _, err := sqllease.New(db, sqllease.Options{Dialect: d, Table: qualified}); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("New(%v, %q) = %v; want ErrConfig", d, qualified, err)
		}
	}
}

// TestSchemaResolved: an unqualified name resolves through the
// search_path of the connection that first checks the table; the strategy
// reports the schema it found (Table) and keeps using that table when a
// connection's search_path later names another schema holding a table of
// the same name.
func TestSchemaResolved(t *testing.T) {
	admin, ctx := openDB(t, migrations.Postgres), ctxT(t)
	schemas := pgSchemas(t, admin, "once_leases", 2)
	db, err := sql.Open("pgx", withParam(testenv.PostgresDSN(), "search_path", schemas[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: the SET below applies to every later call
	s := newStrategy(t, db, sqllease.Options{LowestFirst: true})
	if got := s.Table(); got != "once_leases" {
		t.Errorf("Table() before the first call = %q; want once_leases", got)
	}
	l, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := schemas[0] + ".once_leases"
	if got := s.Table(); got != want {
		t.Errorf("Table() after the first call = %q; want %q", got, want)
	}
	mustExecDB(t, db, "SET search_path = "+schemas[1])
	if _, err := s.Renew(ctx, l, time.Hour); err != nil {
		t.Fatalf("Renew after the session's search_path moved to %s: %v", schemas[1], err)
	}
	slots, err := s.List(ctx)
	if err != nil || len(slots) != 1 || slots[0].MachineID != l.MachineID {
		t.Errorf("List after the search_path moved: %+v, %v; want machine ID %d", slots, err, l.MachineID)
	}
	if err := s.Release(ctx, l); err != nil {
		t.Fatal(err)
	}
	var written int
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+schemas[1]+".once_leases WHERE lock_version > 0").Scan(&written); err != nil || written != 0 {
		t.Errorf("%s.once_leases: %d rows written, %v; want none", schemas[1], written, err)
	}
}

// TestSchemaInAcquireLog: the manager's acquire log record names the
// schema an unqualified table resolved to.
func TestSchemaInAcquireLog(t *testing.T) {
	admin, ctx := openDB(t, migrations.Postgres), ctxT(t)
	schemas := pgSchemas(t, admin, "once_leases", 1)
	db, err := sql.Open("pgx", withParam(testenv.PostgresDSN(), "search_path", schemas[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var log strings.Builder
	m, err := lease.Start(leasehook.With(ctx, &countingFactory{}), newStrategy(t, db, sqllease.Options{}), lease.Options{
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	want := "postgres table " + schemas[0] + ".once_leases"
	if !strings.Contains(log.String(), `coordinator="`+want+`"`) {
		t.Errorf("acquire log names no coordinator %q:\n%s", want, log.String())
	}
}

// TestUnloggedTable: PostgreSQL empties an UNLOGGED table after a crash,
// which frees every held lease while its holders go on: refused, naming
// the fix.
func TestUnloggedTable(t *testing.T) {
	db, ctx := openDB(t, migrations.Postgres), ctxT(t)
	table := newTable(t, db, migrations.Postgres)
	mustExecDB(t, db, "ALTER TABLE "+table+" SET UNLOGGED")
	err := newStrategy(t, db, sqllease.Options{Table: table}).Check(ctx)
	if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "UNLOGGED") || !strings.Contains(err.Error(), "SET LOGGED") {
		t.Fatalf("Check on an UNLOGGED table: %v; want ErrConfig naming UNLOGGED and SET LOGGED", err)
	}
}
