package migrations_test

import (
	"database/sql"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// foreignTarget is a schema (PostgreSQL) or database (MySQL) whose name
// needs quoting, made for one test, with a pool that works in it.
type foreignTarget struct {
	d      migrations.Dialect
	admin  *sql.DB // a pool on the server, in another schema or database
	db     *sql.DB // a pool whose current schema or database is name
	name   string
	quoted string // name as SQL quotes an identifier
}

// newForeignTarget creates the schema or database on server ("postgres",
// "mariadb" or "mysql9"), dropped when the test ends.
func newForeignTarget(t *testing.T, server string) foreignTarget {
	t.Helper()
	name := testenv.Unique(t, "fn") + ` "q" 'a' ` + "`b`"
	if server == "postgres" {
		admin := testenv.Postgres(t)
		quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		_, err := admin.Exec("CREATE SCHEMA " + quoted)
		require.NoError(t, err, "create schema")
		t.Cleanup(func() {
			_, err := admin.Exec("DROP SCHEMA " + quoted + " CASCADE")
			assert.NoError(t, err, "drop schema")
		})
		u, err := url.Parse(testenv.PostgresDSN())
		require.NoError(t, err, "ONCE_TEST_POSTGRES_DSN")
		q := u.Query()
		q.Del("search_path")
		// pgx reads a '+' in the query as itself, not as a space.
		u.RawQuery = q.Encode() + "&search_path=" + strings.ReplaceAll(url.QueryEscape(quoted), "+", "%20")
		db, err := sql.Open("pgx", u.String())
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return foreignTarget{migrations.Postgres, admin, db, name, quoted}
	}
	admin, base := testenv.MySQL(t), testenv.MySQLDSN()
	if server == "mysql9" {
		admin, base = testenv.MySQL9(t), testenv.MySQL9DSN()
	}
	quoted := "`" + strings.ReplaceAll(name, "`", "``") + "`"
	_, err := admin.Exec("CREATE DATABASE " + quoted)
	require.NoError(t, err, "create database")
	t.Cleanup(func() {
		_, err := admin.Exec("DROP DATABASE " + quoted)
		assert.NoError(t, err, "drop database")
	})
	cfg, err := mysql.ParseDSN(base)
	require.NoError(t, err)
	cfg.DBName = name
	db, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return foreignTarget{migrations.MySQL, admin, db, name, quoted}
}

// exec runs the statements in the target's schema or database.
func (ft foreignTarget) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		_, err := ft.db.ExecContext(ctxT(t), s)
		require.NoError(t, err, "%s", s)
	}
}

// functions returns the once_ functions of the target with their
// comments.
func (ft foreignTarget) functions(t *testing.T) map[string]string {
	t.Helper()
	q := `SELECT p.proname, coalesce(obj_description(p.oid, 'pg_proc'), '')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND p.proname LIKE 'once\_%'`
	if ft.d == migrations.MySQL {
		q = `SELECT LOWER(ROUTINE_NAME), ROUTINE_COMMENT FROM information_schema.ROUTINES
			WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'FUNCTION' AND ROUTINE_NAME LIKE 'once\_%'`
	}
	rows, err := ft.admin.QueryContext(ctxT(t), q, ft.name)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var f, c string
		require.NoError(t, rows.Scan(&f, &c))
		out[f] = c
	}
	require.NoError(t, rows.Err())
	return out
}

// format calls the target's once_format of 1 without a prefix.
func (ft foreignTarget) format(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, ft.db.QueryRowContext(ctxT(t), "SELECT once_format(1, '')").Scan(&s), "once_format(1, '')")
	return s
}

// TestInstallFunctionsForeign: a function of one of the names that once
// did not install (its comment does not start "once: ") is neither
// replaced nor dropped: InstallFunctions (also several at once) and
// DropFunctions fail with ErrForeignFunction, naming it and the schema,
// and change nothing. One once installed (an earlier version) is replaced.
func TestInstallFunctionsForeign(t *testing.T) {
	foreign := map[string][]string{
		"postgres": {`CREATE FUNCTION once_format(v bigint, prefix text DEFAULT '') RETURNS text LANGUAGE sql AS $$ SELECT 'foreign' $$`},
		"mysql":    {`CREATE FUNCTION once_format(v BIGINT, prefix VARCHAR(255)) RETURNS TEXT DETERMINISTIC NO SQL RETURN 'foreign'`},
	}
	earlier := map[string][]string{
		"postgres": {`COMMENT ON FUNCTION once_format(bigint, text) IS 'once: an earlier version'`},
		"mysql":    {`ALTER FUNCTION once_format COMMENT 'once: an earlier version'`},
	}
	for _, server := range []string{"postgres", "mariadb", "mysql9"} {
		t.Run(server, func(t *testing.T) {
			ft, ctx := newForeignTarget(t, server), ctxT(t)
			key := ft.d.String()
			ft.exec(t, foreign[key]...)
			require.Equal(t, "foreign", ft.format(t))

			err := migrations.InstallFunctions(ctx, ft.db, ft.d)
			if assert.ErrorIs(t, err, migrations.ErrForeignFunction, "InstallFunctions over a foreign once_format") {
				msg := err.Error()
				assert.True(t, strings.HasPrefix(msg, "migrations: "), "message %q: want the prefix \"migrations: \"", msg)
				assert.Contains(t, msg, "once_format", "the message names the function")
				assert.Contains(t, msg, ft.quoted, "the message names the schema, quoted as SQL quotes it")
			}
			t.Logf("InstallFunctions: %v", err)
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 6 {
				wg.Go(func() { errs <- migrations.InstallFunctions(ctx, ft.db, 0) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				assert.ErrorIs(t, err, migrations.ErrForeignFunction, "concurrent InstallFunctions over a foreign once_format")
			}
			err = migrations.DropFunctions(ctx, ft.db, ft.d)
			if assert.ErrorIs(t, err, migrations.ErrForeignFunction, "DropFunctions with a foreign once_format") {
				assert.Contains(t, err.Error(), "refusing to drop it", "DropFunctions")
			}
			assert.Equal(t, "foreign", ft.format(t), "the foreign once_format was replaced")
			assert.Equal(t, map[string]string{"once_format": ""}, ft.functions(t), "functions after the refusal")

			ft.exec(t, earlier[key]...)
			require.NoError(t, migrations.InstallFunctions(ctx, ft.db, ft.d), "InstallFunctions over an earlier once_format")
			assert.Equal(t, "AAAAAAAAAAE", ft.format(t), "once_format after replacing an earlier version")
			assert.Len(t, ft.functions(t), len(migrations.FunctionNames()), "functions after the install")
		})
	}
}
