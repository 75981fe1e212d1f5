package migrations_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// sqlDialects are the dialects that have the SQL functions.
var sqlDialects = []migrations.Dialect{migrations.Postgres, migrations.MySQL}

// functionsDB returns a database of dialect d in a schema (PostgreSQL) or
// database (MySQL) of the test's own, with the functions installed.
func functionsDB(t *testing.T, d migrations.Dialect) *sql.DB {
	t.Helper()
	var db *sql.DB
	if d == migrations.Postgres {
		db, _ = testenv.PostgresSchema(t, "fn")
	} else {
		db, _ = testenv.MySQLDatabase(t, "fn")
	}
	require.NoError(t, migrations.InstallFunctions(ctxT(t), db, d), "InstallFunctions")
	return db
}

// ph is the n-th (1-based) query placeholder of d.
func ph(d migrations.Dialect, n int) string {
	if d == migrations.Postgres {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// installed returns the once_ functions of the current schema or database
// with their volatility and parallel safety (PostgreSQL) or determinism
// (MySQL), e.g. "once_time i s".
func installed(t *testing.T, ctx context.Context, db *sql.DB, d migrations.Dialect) []string {
	t.Helper()
	q := `SELECT p.proname || ' ' || p.provolatile::text || ' ' || p.proparallel::text || CASE WHEN p.proisstrict THEN ' strict' ELSE '' END
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.proname LIKE 'once\_%' ORDER BY 1`
	if d == migrations.MySQL {
		q = `SELECT CONCAT(ROUTINE_NAME, ' ', IS_DETERMINISTIC, ' ', SQL_DATA_ACCESS) FROM information_schema.ROUTINES
			WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME LIKE 'once\_%' ORDER BY 1`
	}
	rows, err := db.QueryContext(ctx, q)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestInstallFunctions: installing is idempotent and safe to race, every
// function is IMMUTABLE, STRICT and PARALLEL SAFE (PostgreSQL) or
// DETERMINISTIC and NO SQL (MySQL), and DropFunctions removes them all.
func TestInstallFunctions(t *testing.T) {
	want := map[migrations.Dialect]string{
		migrations.Postgres: "once_format i s strict|once_machine_id i s strict|once_min_id i s strict|once_parse i s strict|once_time i s strict",
		migrations.MySQL:    "once_format YES NO SQL|once_machine_id YES NO SQL|once_min_id YES NO SQL|once_parse YES NO SQL|once_time YES NO SQL",
	}
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			db, ctx := functionsDB(t, d), ctxT(t)
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 6 {
				wg.Go(func() { errs <- migrations.InstallFunctions(ctx, db, 0) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				assert.NoError(t, err, "concurrent InstallFunctions")
			}
			assert.Equal(t, want[d], strings.Join(installed(t, ctx, db, d), "|"), "installed functions")
			for range 2 {
				require.NoError(t, migrations.DropFunctions(ctx, db, d), "DropFunctions")
				require.Empty(t, installed(t, ctx, db, d), "functions after DropFunctions")
			}
			require.NoError(t, migrations.InstallFunctions(ctx, db, d))
			require.Len(t, installed(t, ctx, db, d), len(migrations.FunctionNames()), "functions after reinstalling")
		})
	}
}

// TestInstallFunctionsMySQLUnchanged: on MySQL, where a function cannot be
// replaced in one statement, an install that would change nothing leaves
// the functions alone (no DROP, so queries of running processes never
// miss them), and one that would change something replaces them.
func TestInstallFunctionsMySQLUnchanged(t *testing.T) {
	db, ctx := functionsDB(t, migrations.MySQL), ctxT(t)
	created := func() string {
		var s string
		err := db.QueryRowContext(ctx, `SELECT GROUP_CONCAT(CONCAT(ROUTINE_NAME, '@', CREATED, '/', ROUTINE_COMMENT) ORDER BY ROUTINE_NAME)
			FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()`).Scan(&s)
		require.NoError(t, err)
		return s
	}
	before := created()
	time.Sleep(1100 * time.Millisecond) // CREATED has whole seconds
	require.NoError(t, migrations.InstallFunctions(ctx, db, migrations.MySQL))
	assert.Equal(t, before, created(), "an install that changes nothing recreated the functions")
	_, err := db.ExecContext(ctx, "ALTER FUNCTION once_time COMMENT 'once: changed'")
	require.NoError(t, err)
	require.NoError(t, migrations.InstallFunctions(ctx, db, migrations.MySQL))
	after := created()
	assert.NotEqual(t, before, after, "a changed function was not replaced")
	assert.NotContains(t, after, "once: changed", "a changed function was not replaced")
}

func TestInstallFunctionsRejects(t *testing.T) {
	ctx := ctxT(t)
	sqlite := testenv.SQLite(t)
	if err := migrations.InstallFunctions(ctx, sqlite, 0); assert.ErrorIs(t, err, migrations.ErrConfig, "InstallFunctions(SQLite)") {
		assert.Contains(t, err.Error(), "SQLite", "InstallFunctions(SQLite): the error names SQLite")
	}
	assert.ErrorIs(t, migrations.InstallFunctions(ctx, nil, migrations.Postgres), migrations.ErrConfig, "InstallFunctions(nil)")
	assert.ErrorIs(t, migrations.InstallFunctions(ctx, sqlite, migrations.Postgres), migrations.ErrConfig, "InstallFunctions(postgres on SQLite)")
	for _, d := range []migrations.Dialect{migrations.SQLite, 0, 9} {
		_, err := migrations.FunctionsSQL(d)
		assert.ErrorIs(t, err, migrations.ErrConfig, "FunctionsSQL(%v)", d)
	}
	for _, d := range sqlDialects {
		src, err := migrations.FunctionsSQL(d)
		require.NoError(t, err)
		for _, name := range migrations.FunctionNames() {
			assert.Contains(t, src, "FUNCTION "+name+"(", "the %s script does not create %s", d, name)
		}
	}
}

// edgeValues are the values every comparison includes.
var edgeValues = []int64{0, 1, -1, 2, 1<<63 - 1, -1 << 63, -1<<63 + 1, 1 << 22, 1<<22 - 1, 1<<13 - 1, 1 << 13,
	511 << 13, 1<<53 + 1, -1 << 22, -200, 253090450250924033, -3744495160545771519}

// testValues returns the edge values, the conformance vectors' values and
// n random ones: uniform, and IDs as a factory makes them (a timestamp
// within a few years of now).
func testValues(t *testing.T, n int) []int64 {
	c := loadFormats(t)
	vals := append(append([]int64(nil), edgeValues...), c...)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		v := r.Uint64()
		if i%2 == 0 {
			ms := uint64(time.Since(nonce.DefaultEpoch()).Milliseconds()) + r.Uint64N(5*365*86400000)
			v = ms<<22 | r.Uint64N(1<<22)
		}
		vals = append(vals, int64(v))
	}
	return vals
}

// loadFormats returns the values of the conformance vectors' formats
// (testdata/conformance.json of the module).
func loadFormats(t *testing.T) []int64 {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "conformance.json"))
	require.NoError(t, err)
	var c struct {
		Formats []struct {
			Signed string `json:"signed"`
		} `json:"formats"`
	}
	require.NoError(t, json.Unmarshal(b, &c))
	var out []int64
	for _, f := range c.Formats {
		v, err := strconv.ParseInt(f.Signed, 10, 64)
		require.NoError(t, err)
		out = append(out, v)
	}
	require.GreaterOrEqual(t, len(out), 50, "conformance.json: formats")
	return out
}

// loadConformanceText returns the conformance vectors' invalid inputs, the
// lenient parser's inputs and the prefixed url64 spellings.
func loadConformanceText(t testing.TB) []string {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "conformance.json"))
	require.NoError(t, err)
	var c struct {
		Prefixed []struct {
			URL64 string `json:"url64"`
		} `json:"prefixed"`
		InvalidText []struct {
			Inputs []string `json:"inputs"`
		} `json:"invalid_text"`
		NormalizeText []struct {
			Input string `json:"input"`
		} `json:"normalize_text"`
	}
	require.NoError(t, json.Unmarshal(b, &c))
	var out []string
	for _, p := range c.Prefixed {
		out = append(out, p.URL64)
	}
	for _, set := range c.InvalidText {
		out = append(out, set.Inputs...)
	}
	for _, n := range c.NormalizeText {
		out = append(out, n.Input)
	}
	return out
}

// literal is v as an SQL bigint literal of d.
func literal(d migrations.Dialect, v int64) string {
	if d == migrations.Postgres {
		return fmt.Sprintf("'%d'::bigint", v)
	}
	return fmt.Sprintf("CAST('%d' AS SIGNED)", v)
}

// valuesTable is a derived table t(i, v) of vals in d.
func valuesTable(d migrations.Dialect, vals []int64) string {
	var b strings.Builder
	if d == migrations.Postgres {
		b.WriteString("(VALUES ")
		for i, v := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %s)", i, literal(d, v))
		}
		b.WriteString(") AS t(i, v)")
		return b.String()
	}
	b.WriteString("(")
	for i, v := range vals {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, "SELECT %d AS i, %s AS v", i, literal(d, v))
	}
	b.WriteString(") AS t")
	return b.String()
}

// prefixes are the prefixes the comparisons use: none, the usual form, one
// character, and SQL's special characters (quotes, backslash, LIKE
// wildcards), which must reach the functions as they are.
var prefixes = []string{"", "usr_", "x", `a'b"c\d%_`, "z$$;--"}

// TestFunctionsMatchGo compares every function with the Go spelling and
// the bit layout on thousands of values, negative bigints among them.
func TestFunctionsMatchGo(t *testing.T) {
	vals := testValues(t, 4000)
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := functionsDB(t, d), ctxT(t)
			checked := 0
			for start := 0; start < len(vals); start += 500 {
				batch := vals[start:min(start+500, len(vals))]
				for _, prefix := range prefixes {
					checked += compareBatch(t, ctx, db, d, batch, prefix)
				}
			}
			t.Logf("%d values x %d prefixes: %d comparisons", len(vals), len(prefixes), checked)
		})
	}
}

// compareBatch checks once_format, once_parse, once_time and
// once_machine_id on vals with prefix and returns how many values it
// compared.
func compareBatch(t *testing.T, ctx context.Context, db *sql.DB, d migrations.Dialect, vals []int64, prefix string) int {
	t.Helper()
	q := fmt.Sprintf(`SELECT i, v, once_format(v, %[1]s), once_time(v), once_machine_id(v),
		CASE WHEN v = 0 THEN NULL ELSE once_parse(once_format(v, %[1]s), %[1]s) END
		FROM %s ORDER BY i`, ph(d, 1), valuesTable(d, vals))
	if d == migrations.MySQL {
		q = strings.ReplaceAll(q, "?", "@p") // one parameter used three times
	}
	var args []any
	if d == migrations.Postgres {
		args = []any{prefix}
	}
	conn, err := db.Conn(ctx) // MySQL's @p lives in one session
	require.NoError(t, err)
	defer conn.Close()
	if d == migrations.MySQL {
		_, err := conn.ExecContext(ctx, "SET @p = ?", prefix)
		require.NoError(t, err)
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	require.NoError(t, err, "prefix %q", prefix)
	defer rows.Close()
	opts := once.Options{Prefix: prefix}
	n := 0
	for rows.Next() {
		var (
			i, v, machine int64
			spelled       string
			at            time.Time
			parsed        sql.NullInt64
		)
		require.NoError(t, rows.Scan(&i, &v, &spelled, &at, &machine, &parsed))
		require.Equal(t, vals[i], v, "row %d: v (the value did not reach SQL intact)", i)
		want, err := opts.AppendText(nil, once.FromInt64(v))
		require.NoError(t, err)
		assert.Equal(t, string(want), spelled, "once_format(%d, %q), Go spells it", v, prefix)
		p := nonce.Split64(uint64(v), time.Time{})
		assert.WithinDuration(t, p.Time, at, 0, "once_time(%d), the layout says", v)
		assert.Equal(t, time.UTC, at.Location(), "once_time(%d) = %v: location", v, at)
		if v != 0 {
			if ts, err := once.TimeOf(once.FromInt64(v)); assert.NoError(t, err, "once.TimeOf(%d)", v) {
				assert.WithinDuration(t, ts, at, 0, "once_time(%d), once.TimeOf says", v)
			}
		}
		assert.Equal(t, p.MachineID, int(machine), "once_machine_id(%d), the layout says", v)
		if v != 0 {
			assert.Equal(t, sql.NullInt64{Int64: v, Valid: true}, parsed, "once_parse(once_format(%d, %q))", v, prefix)
		}
		n++
	}
	require.NoError(t, rows.Err(), "prefix %q", prefix)
	require.Equal(t, len(vals), n, "prefix %q: rows", prefix)
	return n
}

// TestFunctionsBadPrefix: a prefix that Go refuses (not printable ASCII, a
// space) is an error in SQL too, never a spelling.
func TestFunctionsBadPrefix(t *testing.T) {
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := functionsDB(t, d), ctxT(t)
			bad := []string{" ", "usr ", "a\tb", "é_", "\x7f", "a\nb", "\x00"}
			if d == migrations.MySQL {
				bad = append(bad, strings.Repeat("p", 256)) // the parameters' size (255 is the longest)
			}
			for _, prefix := range bad {
				_, goErr := once.Options{Prefix: prefix}.AppendText(nil, once.FromInt64(1))
				if len(prefix) == 256 {
					goErr = errors.New("the MySQL functions take at most 255 characters")
				}
				require.Error(t, goErr, "Go accepts prefix %q", prefix)
				var s string
				err := db.QueryRowContext(ctx, "SELECT once_format(1, "+ph(d, 1)+")", prefix).Scan(&s)
				// PostgreSQL text cannot hold NUL: the driver's error rejects it.
				dbOnly := d == migrations.Postgres && strings.Contains(prefix, "\x00")
				if assert.Error(t, err, "once_format(1, %q) = %q; want an invalid prefix error", prefix, s) && !dbOnly {
					assert.Contains(t, err.Error(), "invalid prefix", "once_format(1, %q)", prefix)
				}
				var v int64
				err = db.QueryRowContext(ctx, "SELECT once_parse("+ph(d, 1)+", "+ph(d, 2)+")", prefix+"AAAAAAAAAAE", prefix).Scan(&v)
				if assert.Error(t, err, "once_parse(%q, %q) = %d; want an invalid prefix error", prefix+"AAAAAAAAAAE", prefix, v) && !dbOnly {
					assert.Contains(t, err.Error(), "invalid prefix", "once_parse(%q, %q)", prefix+"AAAAAAAAAAE", prefix)
				}
			}
		})
	}
}

// TestFunctionsNull: NULL in, NULL out.
func TestFunctionsNull(t *testing.T) {
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := functionsDB(t, d), ctxT(t)
			var a, b, c, e, f, g, h sql.NullString
			err := db.QueryRowContext(ctx, `SELECT once_format(NULL, ''), once_format(1, NULL), once_parse(NULL, ''),
				once_parse('AAAAAAAAAAE', NULL), once_time(NULL), once_machine_id(NULL), once_min_id(NULL)`).Scan(&a, &b, &c, &e, &f, &g, &h)
			require.NoError(t, err)
			for i, n := range []sql.NullString{a, b, c, e, f, g, h} {
				assert.False(t, n.Valid, "column %d = %q, want NULL", i+1, n.String)
			}
		})
	}
}
