package cli

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/once-go/once/internal/testenv"
)

// hostile returns a schema or database name with quotes, a backtick, a
// semicolon, spaces and non-ASCII letters, unique (MySQL allows no '.',
// '/' or '\' in database names, nor a trailing space, nor more than 64
// characters).
func hostile(t *testing.T) string {
	var b [4]byte
	rand.Read(b[:])
	return `o "q" 'a'; DROP TABLE canary; -- ` + "`b` ü " + hex.EncodeToString(b[:])
}

func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func myIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
func sqlText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pgWithSearchPath returns the DSN with search_path set to path.
func pgWithSearchPath(t *testing.T, path string) string {
	t.Helper()
	u, err := url.Parse(testenv.PostgresDSN())
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Skipf("ONCE_TEST_POSTGRES_DSN is not a URL: %v", err)
	}
	q := u.Query()
	q.Del("search_path")
	// pgx reads a '+' in the query as itself, not as a space.
	u.RawQuery = q.Encode() + "&search_path=" + strings.ReplaceAll(url.QueryEscape(path), "+", "%20")
	return u.String()
}

// pgSchema creates schema name, dropped at the end, with a table canary.
func pgSchema(t *testing.T, admin *sql.DB, name string) {
	t.Helper()
	if _, err := admin.Exec("CREATE SCHEMA " + pgIdent(name)); err != nil {
		t.Fatalf("create schema %q: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + pgIdent(name) + " CASCADE"); err != nil {
			t.Errorf("drop schema %q: %v", name, err)
		}
	})
	if _, err := admin.Exec("CREATE TABLE " + pgIdent(name) + ".canary (x int)"); err != nil {
		t.Fatal(err)
	}
}

// pgFunctions returns the once functions in schema name, with comments.
func pgFunctions(t *testing.T, admin *sql.DB, name string) map[string]string {
	t.Helper()
	rows, err := admin.Query(`SELECT p.proname, coalesce(obj_description(p.oid, 'pg_proc'), '')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND p.proname LIKE 'once\_%'`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var f, c string
		if err := rows.Scan(&f, &c); err != nil {
			t.Fatal(err)
		}
		out[f] = c
	}
	return out
}

// mysqlHostile creates a database with a hostile name on the server of
// open, dropped at the end, and returns it, its DSN and an admin pool.
func mysqlHostile(t *testing.T, admin *sql.DB, base string) (string, string) {
	t.Helper()
	name := hostile(t)
	if _, err := admin.Exec("CREATE DATABASE " + myIdent(name)); err != nil {
		t.Fatalf("create database %q: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + myIdent(name)); err != nil {
			t.Errorf("drop database %q: %v", name, err)
		}
	})
	if _, err := admin.Exec("CREATE TABLE " + myIdent(name) + ".canary (x int)"); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = name
	return name, cfg.FormatDSN()
}

// mysqlFunctions returns the once functions in database name, with
// comments.
func mysqlFunctions(t *testing.T, admin *sql.DB, name string) map[string]string {
	t.Helper()
	rows, err := admin.Query(`SELECT ROUTINE_NAME, ROUTINE_COMMENT FROM information_schema.ROUTINES
		WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'FUNCTION' AND ROUTINE_NAME LIKE 'once\_%'`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var f, c string
		if err := rows.Scan(&f, &c); err != nil {
			t.Fatal(err)
		}
		out[strings.ToLower(f)] = c
	}
	return out
}

// mysqlServers are the MySQL-protocol servers "sql install" is tested on.
var mysqlServers = []struct {
	name  string
	admin func(testing.TB) *sql.DB
	dsn   func() string
}{
	{"mariadb", testenv.MySQL, testenv.MySQLDSN},
	{"mysql9", testenv.MySQL9, testenv.MySQL9DSN},
}

// TestSQLInstallHostileSchema: "once sql install" into a schema (database)
// whose name has quotes, a backtick, a semicolon, spaces and non-ASCII
// letters creates the five functions there, runs nothing else, and works
// through the name as the DSN spells it (PostgreSQL: a quoted identifier
// in search_path; MySQL: the DSN's database, also in the mysql:// form).
func TestSQLInstallHostileSchema(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		admin := testenv.Postgres(t)
		name := hostile(t)
		pgSchema(t, admin, name)
		r := cli("", "sql", "install", "--driver", "postgres", "--dsn", pgWithSearchPath(t, pgIdent(name)))
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("install: %v", r)
		}
		if got := pgFunctions(t, admin, name); len(got) != 5 {
			t.Errorf("functions in %q: %v, want 5", name, got)
		}
		var s string
		if err := admin.QueryRow("SELECT " + pgIdent(name) + ".once_format(-3744495160545771519, 'usr_')").Scan(&s); err != nil || s != "usr_zAjhfZyAAAE" {
			t.Errorf("once_format in %q: %q, %v", name, s, err)
		}
		if _, err := admin.Exec("SELECT * FROM " + pgIdent(name) + ".canary"); err != nil {
			t.Errorf("canary: %v", err)
		}
	})
	for _, srv := range mysqlServers {
		t.Run(srv.name, func(t *testing.T) {
			admin := srv.admin(t)
			name, dsn := mysqlHostile(t, admin, srv.dsn())
			cfg, _ := mysql.ParseDSN(dsn)
			u := url.URL{Scheme: "mysql", User: url.User(cfg.User), Host: cfg.Addr, Path: "/" + name}
			for _, d := range []string{dsn, u.String()} {
				r := cli("", "sql", "install", "--driver", "mysql", "--dsn", d)
				if r.code != 0 || r.stdout != "" || r.stderr != "" {
					t.Fatalf("install --dsn %s: %v", d, r)
				}
			}
			if got := mysqlFunctions(t, admin, name); len(got) != 5 {
				t.Errorf("functions in %q: %v, want 5", name, got)
			}
			var s string
			if err := admin.QueryRow("SELECT " + myIdent(name) + ".once_format(-3744495160545771519, 'usr_')").Scan(&s); err != nil || s != "usr_zAjhfZyAAAE" {
				t.Errorf("once_format in %q: %q, %v", name, s, err)
			}
			if _, err := admin.Exec("SELECT * FROM " + myIdent(name) + ".canary"); err != nil {
				t.Errorf("canary: %v", err)
			}
		})
	}
}

// TestSQLInstallMissingSchema: a search_path whose first schema does not
// exist would have PostgreSQL create the functions in the next one; the
// install is refused, naming the schema, and creates nothing.
func TestSQLInstallMissingSchema(t *testing.T) {
	admin := testenv.Postgres(t)
	missing, fallback := hostile(t)+" missing", testenv.Unique(t, "fallback")
	pgSchema(t, admin, fallback)
	r := cli("", "sql", "install", "--driver", "postgres", "--dsn", pgWithSearchPath(t, pgIdent(missing)+", "+pgIdent(fallback)))
	if r.code != exitFail || !strings.Contains(r.stderr, pgIdent(missing)) {
		t.Errorf("install: %v\nwant exit %d naming %s", r, exitFail, pgIdent(missing))
	}
	if got := pgFunctions(t, admin, fallback); len(got) != 0 {
		t.Errorf("functions created in %q, the next schema of the search_path: %v", fallback, got)
	}
}

// TestSQLInstallForeignFunction: a function of the same name that once
// did not install (its comment does not start "once: ") is neither
// replaced nor dropped: the install is refused, naming it. A function once
// installed (an earlier version) is replaced.
func TestSQLInstallForeignFunction(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		admin := testenv.Postgres(t)
		name := hostile(t)
		pgSchema(t, admin, name)
		if _, err := admin.Exec("CREATE FUNCTION " + pgIdent(name) + ".once_format(v bigint, prefix text) RETURNS text LANGUAGE sql AS $$ SELECT 'foreign' $$"); err != nil {
			t.Fatal(err)
		}
		dsn := pgWithSearchPath(t, pgIdent(name))
		r := cli("", "sql", "install", "--driver", "postgres", "--dsn", dsn)
		if r.code != exitFail || !strings.Contains(r.stderr, "once_format") || !strings.Contains(r.stderr, pgIdent(name)) ||
			!strings.HasPrefix(r.stderr, "once sql install: ") || !strings.Contains(r.stderr, "once did not install") || strings.Contains(r.stderr, "migrations:") {
			t.Errorf("install over a foreign once_format: %v\nwant exit %d naming the function and schema", r, exitFail)
		}
		var s string
		if err := admin.QueryRow("SELECT " + pgIdent(name) + ".once_format(1, '')").Scan(&s); err != nil || s != "foreign" {
			t.Errorf("the foreign once_format now returns %q (%v)", s, err)
		}
		if got := pgFunctions(t, admin, name); len(got) != 1 {
			t.Errorf("functions after the refusal: %v, want the foreign one alone", got)
		}

		// An earlier once_time of once's: replaced.
		if _, err := admin.Exec("DROP FUNCTION " + pgIdent(name) + ".once_format(bigint, text)"); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec("CREATE FUNCTION " + pgIdent(name) + ".once_time(v bigint) RETURNS timestamp LANGUAGE sql AS $$ SELECT NULL::timestamp $$"); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec("COMMENT ON FUNCTION " + pgIdent(name) + ".once_time(bigint) IS 'once: an earlier version'"); err != nil {
			t.Fatal(err)
		}
		if r := cli("", "sql", "install", "--driver", "postgres", "--dsn", dsn); r.code != 0 || r.stderr != "" {
			t.Fatalf("install over an earlier once_time: %v", r)
		}
		var ts sql.NullTime
		if err := admin.QueryRow("SELECT " + pgIdent(name) + ".once_time(4194304)").Scan(&ts); err != nil || !ts.Valid {
			t.Errorf("once_time after the install: %v (%v)", ts, err)
		}
	})
	for _, srv := range mysqlServers {
		t.Run(srv.name, func(t *testing.T) {
			admin := srv.admin(t)
			name, dsn := mysqlHostile(t, admin, srv.dsn())
			if _, err := admin.Exec("CREATE FUNCTION " + myIdent(name) + ".once_format(v BIGINT, prefix VARCHAR(256)) RETURNS TEXT DETERMINISTIC NO SQL RETURN 'foreign'"); err != nil {
				t.Fatal(err)
			}
			r := cli("", "sql", "install", "--driver", "mysql", "--dsn", dsn)
			if r.code != exitFail || !strings.Contains(r.stderr, "once_format") || !strings.Contains(r.stderr, myIdent(name)) ||
				!strings.HasPrefix(r.stderr, "once sql install: ") || !strings.Contains(r.stderr, "once did not install") || strings.Contains(r.stderr, "migrations:") {
				t.Errorf("install over a foreign once_format: %v\nwant exit %d naming the function and database", r, exitFail)
			}
			var s string
			if err := admin.QueryRow("SELECT " + myIdent(name) + ".once_format(1, '')").Scan(&s); err != nil || s != "foreign" {
				t.Errorf("the foreign once_format now returns %q (%v)", s, err)
			}
			if got := mysqlFunctions(t, admin, name); len(got) != 1 {
				t.Errorf("functions after the refusal: %v, want the foreign one alone", got)
			}

			if _, err := admin.Exec("DROP FUNCTION " + myIdent(name) + ".once_format"); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.Exec("CREATE FUNCTION " + myIdent(name) + ".once_time(v BIGINT) RETURNS DATETIME(3) DETERMINISTIC NO SQL COMMENT " + sqlText("once: an earlier version") + " RETURN NULL"); err != nil {
				t.Fatal(err)
			}
			if r := cli("", "sql", "install", "--driver", "mysql", "--dsn", dsn); r.code != 0 || r.stderr != "" {
				t.Fatalf("install over an earlier once_time: %v", r)
			}
			var ts sql.NullString
			if err := admin.QueryRow("SELECT " + myIdent(name) + ".once_time(4194304)").Scan(&ts); err != nil || !ts.Valid {
				t.Errorf("once_time after the install: %v (%v)", ts, err)
			}
		})
	}
}

// TestSQLInstallNoDatabase: a MySQL DSN without a database is refused
// before anything is installed.
func TestSQLInstallNoDatabase(t *testing.T) {
	for _, srv := range mysqlServers {
		t.Run(srv.name, func(t *testing.T) {
			srv.admin(t) // skips or fails when the server is down
			cfg, err := mysql.ParseDSN(srv.dsn())
			if err != nil {
				t.Fatal(err)
			}
			cfg.DBName = ""
			r := cli("", "sql", "install", "--driver", "mysql", "--dsn", cfg.FormatDSN())
			if r.code != exitUsage || !strings.Contains(r.stderr, "names no database") {
				t.Errorf("install without a database: %v", r)
			}
		})
	}
}

func TestSplitSearchPath(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // nil: unreadable
	}{
		{`"$user", public`, []string{"$user", "public"}},
		{`$user,Public`, []string{"$user", "public"}},
		{` "A ""b"", c" ,x `, []string{`A "b", c`, "x"}},
		{`"ü;--"`, []string{"ü;--"}},
		{``, []string{}},
		{`"open`, nil},
		{`a b`, nil},
		{`a,,b`, nil},
		{`""`, nil},
	} {
		got, ok := splitSearchPath(c.in)
		if c.want == nil {
			if ok {
				t.Errorf("splitSearchPath(%q) = %q, want unreadable", c.in, got)
			}
			continue
		}
		if !ok || strings.Join(got, "\x00") != strings.Join(c.want, "\x00") || len(got) != len(c.want) {
			t.Errorf("splitSearchPath(%q) = %q, %v, want %q", c.in, got, ok, c.want)
		}
	}
}

// FuzzSplitSearchPath: names quoted as PostgreSQL quotes them and joined
// with commas read back as themselves.
func FuzzSplitSearchPath(f *testing.F) {
	f.Add("public", `o "q" 'a'; -- ü`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" {
			return
		}
		got, ok := splitSearchPath(pgIdent(a) + " , " + pgIdent(b))
		if !ok || len(got) != 2 || got[0] != a || got[1] != b {
			t.Errorf("%q, %q read back as %q, %v", a, b, got, ok)
		}
		splitSearchPath(a + b) // no panic
	})
}
