package migrations_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// open returns a test database of dialect d.
func open(t *testing.T, d migrations.Dialect) *sql.DB {
	t.Helper()
	switch d {
	case migrations.Postgres:
		return testenv.Postgres(t)
	case migrations.MySQL:
		return testenv.MySQL(t)
	}
	return testenv.SQLite(t)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// expiresAt renders expires_at as text the same way in every dialect.
func expiresAt(d migrations.Dialect) string {
	switch d {
	case migrations.Postgres:
		return `to_char(expires_at, 'YYYY-MM-DD"T"HH24:MI:SS.US')`
	case migrations.MySQL:
		return `DATE_FORMAT(expires_at, '%Y-%m-%dT%H:%i:%s.%f')`
	}
	return `rtrim(expires_at, 'Z')`
}

type summary struct {
	rows, minID, maxID, nullTokens, lockSum int
	minExp, maxExp                          string
}

func summarize(t *testing.T, ctx context.Context, db *sql.DB, d migrations.Dialect, table string) summary {
	t.Helper()
	q, _ := migrations.QuoteTable(d, table)
	var s summary
	err := db.QueryRowContext(ctx, `SELECT COUNT(*), MIN(id), MAX(id),
		SUM(CASE WHEN token IS NULL THEN 1 ELSE 0 END), SUM(lock_version),
		MIN(`+expiresAt(d)+`), MAX(`+expiresAt(d)+`) FROM `+q).
		Scan(&s.rows, &s.minID, &s.maxID, &s.nullTokens, &s.lockSum, &s.minExp, &s.maxExp)
	if err != nil {
		t.Fatalf("summarize %s: %v", table, err)
	}
	return s
}

func wantFresh(t *testing.T, got summary) {
	t.Helper()
	want := summary{rows: 512, minID: 0, maxID: 511, nullTokens: 512, lockSum: 0,
		minExp: "1970-01-01T00:00:00.000000", maxExp: "1970-01-01T00:00:00.000000"}
	if got != want {
		t.Fatalf("table = %+v; want %+v", got, want)
	}
}

func tableExists(ctx context.Context, db *sql.DB, d migrations.Dialect, table string) bool {
	q, _ := migrations.QuoteTable(d, table)
	var n int
	return db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+q).Scan(&n) == nil
}

func TestApply(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := open(t, d), ctxT(t)
			table := testenv.Unique(t, "mig")
			t.Cleanup(func() { migrations.Down(context.Background(), db, d, table) })

			for i := range 2 {
				if err := migrations.Apply(ctx, db, d, table); err != nil {
					t.Fatalf("Apply #%d: %v", i+1, err)
				}
				wantFresh(t, summarize(t, ctx, db, d, table))
			}

			// A third Apply refills a missing row and leaves a used one alone.
			q, _ := migrations.QuoteTable(d, table)
			if _, err := db.ExecContext(ctx, "DELETE FROM "+q+" WHERE id = 7"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "UPDATE "+q+" SET lock_version = 5 WHERE id = 9"); err != nil {
				t.Fatal(err)
			}
			if err := migrations.Apply(ctx, db, d, table); err != nil {
				t.Fatal(err)
			}
			got := summarize(t, ctx, db, d, table)
			if got.rows != 512 || got.lockSum != 5 {
				t.Fatalf("after refill: %+v", got)
			}

			for i := range 2 {
				if err := migrations.Down(ctx, db, d, table); err != nil {
					t.Fatalf("Down #%d: %v", i+1, err)
				}
				if tableExists(ctx, db, d, table) {
					t.Fatalf("table %s still exists after Down", table)
				}
			}
		})
	}
}

// TestApplyConcurrent: several processes migrating at boot must not fail.
func TestApplyConcurrent(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := open(t, d), ctxT(t)
			table := testenv.Unique(t, "migc")
			t.Cleanup(func() { migrations.Down(context.Background(), db, d, table) })
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() { errs <- migrations.Apply(ctx, db, d, table) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			wantFresh(t, summarize(t, ctx, db, d, table))
		})
	}
}

// TestApplyElixirName: the Elixir library's default table name works, and a
// reserved word works because names are quoted.
func TestApplyElixirName(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			db, ctx := open(t, d), ctxT(t)
			names := []string{"no_noncense_leases"}
			if d == migrations.SQLite { // a fresh file: nothing else can be using these names
				names = append(names, "order")
			} else if tableExists(ctx, db, d, "no_noncense_leases") {
				t.Skip("no_noncense_leases already exists in the test database; not touching it")
			}
			for _, table := range names {
				if err := migrations.Apply(ctx, db, d, table); err != nil {
					t.Fatalf("Apply %s: %v", table, err)
				}
				wantFresh(t, summarize(t, ctx, db, d, table))
				if err := migrations.Down(ctx, db, d, table); err != nil {
					t.Fatalf("Down %s: %v", table, err)
				}
			}
		})
	}
}

func TestApplyRejects(t *testing.T) {
	db := testenv.SQLite(t)
	ctx := ctxT(t)
	for _, bad := range []string{"1abc", "x; DROP TABLE y", "Leases", "main.once_leases"} {
		if err := migrations.Apply(ctx, db, migrations.SQLite, bad); !errors.Is(err, migrations.ErrConfig) {
			t.Errorf("Apply(%q) = %v; want ErrConfig", bad, err)
		}
	}
	if err := migrations.Apply(ctx, db, 9, "t"); !errors.Is(err, migrations.ErrConfig) {
		t.Errorf("Apply(dialect 9) = %v; want ErrConfig", err)
	}
	if err := migrations.Apply(ctx, nil, migrations.SQLite, "t"); !errors.Is(err, migrations.ErrConfig) {
		t.Errorf("Apply(nil db) = %v; want ErrConfig", err)
	}
	// The default name is used when table is empty.
	if err := migrations.Apply(ctx, db, migrations.SQLite, ""); err != nil {
		t.Fatal(err)
	}
	wantFresh(t, summarize(t, ctx, db, migrations.SQLite, migrations.DefaultTable))
}

func TestDetectDialect(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			got, err := migrations.DetectDialect(open(t, d))
			if err != nil || got != d {
				t.Fatalf("DetectDialect = %v, %v; want %v", got, err, d)
			}
		})
	}
	if _, err := migrations.DetectDialect(nil); !errors.Is(err, migrations.ErrConfig) {
		t.Errorf("DetectDialect(nil) = %v", err)
	}
}

// TestApplyKeylessTable: on an existing lease table whose id is not a
// unique key (CREATE TABLE AS, a dump restored without constraints),
// Apply refuses (ErrConfig naming the table and the statement that adds
// the key) instead of inserting a second row per machine ID, which
// would be a second lease on it.
func TestApplyKeylessTable(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := open(t, d), ctxT(t)
			src := testenv.Unique(t, "migk_src")
			table := testenv.Unique(t, "migk")
			t.Cleanup(func() {
				migrations.Down(context.Background(), db, d, src)
				migrations.Down(context.Background(), db, d, table)
			})
			if err := migrations.Apply(ctx, db, d, src); err != nil {
				t.Fatal(err)
			}
			qsrc, _ := migrations.QuoteTable(d, src)
			q, _ := migrations.QuoteTable(d, table)
			if _, err := db.ExecContext(ctx, "CREATE TABLE "+q+" AS SELECT * FROM "+qsrc); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				err := migrations.Apply(ctx, db, d, table)
				var n int
				if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 512 {
					t.Fatalf("Apply #%d on a keyless table: %v; the table now has %d rows (a second lease per machine ID)", i+1, err, n)
				}
				if !errors.Is(err, migrations.ErrConfig) || !strings.Contains(err.Error(), table) || !strings.Contains(err.Error(), "CREATE UNIQUE INDEX") {
					t.Fatalf("Apply #%d on a keyless table: %v; want ErrConfig naming the table and CREATE UNIQUE INDEX", i+1, err)
				}
				t.Logf("refused: %v", err)
			}
		})
	}
}

// TestApplyAddsHolder: on a table made before the holder column existed
// (000001 only), Apply adds the column once, also when several processes
// run it at once, keeps every row, and is a no-op afterwards.
func TestApplyAddsHolder(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := open(t, d), ctxT(t)
			table := testenv.Unique(t, "migh")
			t.Cleanup(func() { migrations.Down(context.Background(), db, d, table) })
			stmts, err := migrations.Statements(d, table, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range stmts[:2] { // 000001: create, fill
				if _, err := db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			q, _ := migrations.QuoteTable(d, table)
			if _, err := db.ExecContext(ctx, "UPDATE "+q+" SET lock_version = 5 WHERE id = 9"); err != nil {
				t.Fatal(err)
			}
			holder := func() error {
				var n int
				return db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+q+" WHERE holder IS NULL").Scan(&n)
			}
			if holder() == nil {
				t.Fatal("the table has a holder column before Apply")
			}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() { errs <- migrations.Apply(ctx, db, d, table) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			if err := holder(); err != nil {
				t.Fatalf("no holder column after Apply: %v", err)
			}
			if err := migrations.Apply(ctx, db, d, table); err != nil {
				t.Fatal(err)
			}
			if got := summarize(t, ctx, db, d, table); got.rows != 512 || got.lockSum != 5 {
				t.Fatalf("after Apply: %+v", got)
			}
		})
	}
}
