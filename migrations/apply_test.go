package migrations_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err, "summarize %s", table)
	return s
}

func wantFresh(t *testing.T, got summary) {
	t.Helper()
	want := summary{rows: 512, minID: 0, maxID: 511, nullTokens: 512, lockSum: 0,
		minExp: "1970-01-01T00:00:00.000000", maxExp: "1970-01-01T00:00:00.000000"}
	require.Equal(t, want, got, "table")
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
				require.NoError(t, migrations.Apply(ctx, db, d, table), "Apply #%d", i+1)
				wantFresh(t, summarize(t, ctx, db, d, table))
			}

			// A third Apply refills a missing row and leaves a used one alone.
			q, _ := migrations.QuoteTable(d, table)
			_, err := db.ExecContext(ctx, "DELETE FROM "+q+" WHERE id = 7")
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, "UPDATE "+q+" SET lock_version = 5 WHERE id = 9")
			require.NoError(t, err)
			require.NoError(t, migrations.Apply(ctx, db, d, table))
			got := summarize(t, ctx, db, d, table)
			require.Equal(t, 512, got.rows, "after refill: rows")
			require.Equal(t, 5, got.lockSum, "after refill: lock_version sum")

			for i := range 2 {
				require.NoError(t, migrations.Down(ctx, db, d, table), "Down #%d", i+1)
				require.False(t, tableExists(ctx, db, d, table), "table %s still exists after Down", table)
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
				assert.NoError(t, err)
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
				require.NoError(t, migrations.Apply(ctx, db, d, table), "Apply %s", table)
				wantFresh(t, summarize(t, ctx, db, d, table))
				require.NoError(t, migrations.Down(ctx, db, d, table), "Down %s", table)
			}
		})
	}
}

func TestApplyRejects(t *testing.T) {
	db := testenv.SQLite(t)
	ctx := ctxT(t)
	for _, bad := range []string{"1abc", "x; DROP TABLE y", "Leases", "main.once_leases"} {
		assert.ErrorIs(t, migrations.Apply(ctx, db, migrations.SQLite, bad), migrations.ErrConfig, "Apply(%q)", bad)
	}
	assert.ErrorIs(t, migrations.Apply(ctx, db, 9, "t"), migrations.ErrConfig, "Apply(dialect 9)")
	assert.ErrorIs(t, migrations.Apply(ctx, nil, migrations.SQLite, "t"), migrations.ErrConfig, "Apply(nil db)")
	// The default name is used when table is empty.
	require.NoError(t, migrations.Apply(ctx, db, migrations.SQLite, ""))
	wantFresh(t, summarize(t, ctx, db, migrations.SQLite, migrations.DefaultTable))
}

func TestDetectDialect(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			got, err := migrations.DetectDialect(open(t, d))
			require.NoError(t, err, "DetectDialect")
			require.Equal(t, d, got, "DetectDialect")
		})
	}
	_, err := migrations.DetectDialect(nil)
	assert.ErrorIs(t, err, migrations.ErrConfig, "DetectDialect(nil)")
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
			require.NoError(t, migrations.Apply(ctx, db, d, src))
			qsrc, _ := migrations.QuoteTable(d, src)
			q, _ := migrations.QuoteTable(d, table)
			_, err := db.ExecContext(ctx, "CREATE TABLE "+q+" AS SELECT * FROM "+qsrc)
			require.NoError(t, err)
			for i := range 2 {
				err := migrations.Apply(ctx, db, d, table)
				var n int
				require.NoError(t, db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+q).Scan(&n))
				require.Equal(t, 512, n, "Apply #%d on a keyless table (%v): rows (more is a second lease per machine ID)", i+1, err)
				require.ErrorIs(t, err, migrations.ErrConfig, "Apply #%d on a keyless table", i+1)
				require.Contains(t, err.Error(), table, "Apply #%d on a keyless table: the error names the table", i+1)
				require.Contains(t, err.Error(), "CREATE UNIQUE INDEX", "Apply #%d on a keyless table: the error names the fix", i+1)
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
			require.NoError(t, err)
			for _, s := range stmts[:2] { // 000001: create, fill
				_, err := db.ExecContext(ctx, s)
				require.NoError(t, err)
			}
			q, _ := migrations.QuoteTable(d, table)
			_, err = db.ExecContext(ctx, "UPDATE "+q+" SET lock_version = 5 WHERE id = 9")
			require.NoError(t, err)
			holder := func() error {
				var n int
				return db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+q+" WHERE holder IS NULL").Scan(&n)
			}
			require.Error(t, holder(), "the table has a holder column before Apply")
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() { errs <- migrations.Apply(ctx, db, d, table) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				assert.NoError(t, err)
			}
			require.NoError(t, holder(), "no holder column after Apply")
			require.NoError(t, migrations.Apply(ctx, db, d, table))
			got := summarize(t, ctx, db, d, table)
			require.Equal(t, 512, got.rows, "after Apply: rows")
			require.Equal(t, 5, got.lockSum, "after Apply: lock_version sum")
		})
	}
}
