package cli

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// TestSQLInstall: "once sql install" creates the functions in the
// database its DSN names, prints nothing, and can run again; the functions
// then answer as documented.
func TestSQLInstall(t *testing.T) {
	for _, c := range []struct {
		driver string
		open   func(testing.TB, string) (*sql.DB, string)
	}{
		{"postgres", testenv.PostgresSchema},
		{"mysql", testenv.MySQLDatabase},
	} {
		t.Run(c.driver, func(t *testing.T) {
			db, dsn := c.open(t, "cli")
			for i := range 2 {
				r := cli("", "sql", "install", "--driver", c.driver, "--dsn", dsn)
				if r.code != 0 || r.stdout != "" || r.stderr != "" {
					t.Fatalf("run %d: %v", i+1, r)
				}
			}
			var s string
			var v int64
			if err := db.QueryRow("SELECT once_format(-3744495160545771519, 'usr_'), once_parse('usr_zAjhfZyAAAE', 'usr_')").Scan(&s, &v); err != nil {
				t.Fatal(err)
			}
			if s != "usr_zAjhfZyAAAE" || v != -3744495160545771519 {
				t.Errorf("once_format, once_parse = %q, %d", s, v)
			}
		})
	}
}

// TestSQLInstallPrint: --print writes the script that InstallFunctions
// runs, without a database.
func TestSQLInstallPrint(t *testing.T) {
	for _, d := range []migrations.Dialect{migrations.Postgres, migrations.MySQL} {
		want, err := migrations.FunctionsSQL(d)
		if err != nil {
			t.Fatal(err)
		}
		r := cli("", "sql", "install", "--driver", d.String(), "--print")
		if r.code != 0 || r.stderr != "" || r.stdout != want {
			t.Errorf("sql install --driver %s --print: exit %d, stderr %q, %d bytes (want %d)", d, r.code, r.stderr, len(r.stdout), len(want))
		}
	}
}

func TestSQLInstallErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sql"}, exitUsage, "missing command"},
		{[]string{"sql", "uninstall"}, exitUsage, `unknown command "uninstall"`},
		{[]string{"sql", "install", "--dsn", "x"}, exitUsage, "--driver is required"},
		{[]string{"sql", "install", "--driver", "sqlite", "--dsn", "x"}, exitUsage, "SQLite cannot define functions"},
		{[]string{"sql", "install", "--driver", "oracle", "--dsn", "x"}, exitUsage, `--driver "oracle": unknown driver`},
		{[]string{"sql", "install", "--driver", "postgres"}, exitUsage, "--dsn is required"},
		{[]string{"sql", "install", "--driver", "postgres", "--dsn", "x", "--print"}, exitUsage, "connects to nothing"},
		{[]string{"sql", "install", "--driver", "postgres", "--dsn", "x", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"sql", "install", "--driver", "postgres", "--dsn", "postgres://u:secret@[bad"}, exitUsage, "--dsn"},
		{[]string{"sql", "install", "--driver", "mysql", "--dsn", "mysql://u:secret@tcp(bad"}, exitUsage, "--dsn"},
		{[]string{"sql", "install", "--driver", "postgres", "--dsn", "postgres://u@" + testenv.DeadAddr(t) + "/db?connect_timeout=2"}, exitFail, "connecting to postgres"},
		{[]string{"sql", "install", "--driver", "mysql", "--dsn", "u@tcp(" + testenv.DeadAddr(t) + ")/db?timeout=2s"}, exitFail, "connecting to mysql"},
	} {
		r := cli("", c.args...)
		if r.code != c.code || r.stdout != "" || !strings.Contains(r.stderr, c.msg) || strings.Contains(r.stderr, "secret") {
			t.Errorf("once %s: %v\nwant exit %d and %q on stderr (no password)", strings.Join(c.args, " "), r, c.code, c.msg)
		}
	}
	if r := cli("", "sql", "--help"); r.code != 0 || !strings.Contains(r.stdout, "usage: once sql install") {
		t.Errorf("once sql --help: %v", r)
	}
}
