package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/once-go/once/internal/testenv"
)

// TestSQLiteMissingFile: the commands that only read or use the lease
// table (ls, hold) create no file and say what is missing; migrate does
// create the file; a missing directory is named as such.
func TestSQLiteMissingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "leases.db")
	for _, args := range [][]string{
		{"lease", "ls", "--driver", "sqlite", "--dsn", path},
		{"lease", "ls", "--driver", "sqlite", "--dsn", "file:" + path},
		{"lease", "ls", "--driver", "sqlite", "--dsn", "file:" + path + "?_pragma=busy_timeout(100)"},
		append([]string{"lease", "hold", "--driver", "sqlite", "--dsn", path, "--acquire-timeout", "1s"}, shortLease...),
	} {
		r := cli("", args...)
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("once %q created %s (%v)", args, path, r)
		}
		if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, "no such file") || !strings.Contains(r.stderr, "lease migrate") {
			t.Errorf("once %q on a missing file: %v\nwant exit 1 naming the missing file and lease migrate", args, r)
		}
	}
	for _, cmd := range []string{"ls", "migrate"} {
		missing := filepath.Join(dir, "no-such-dir", "leases.db")
		r := cli("", "lease", cmd, "--driver", "sqlite", "--dsn", missing)
		if r.code != exitFail || !strings.Contains(r.stderr, "no such directory") || strings.Contains(r.stderr, "out of memory") {
			t.Errorf("lease %s in a missing directory: %v\nwant exit 1 naming the missing directory", cmd, r)
		}
	}
	if r := cli("", "lease", "migrate", "--driver", "sqlite", "--dsn", path); r.code != 0 || r.stderr != "" {
		t.Fatalf("lease migrate on a new file: %v", r)
	}
	if r := cli("", "lease", "ls", "--driver", "sqlite", "--dsn", path); r.code != 0 || len(r.lines()) != 1 || !strings.HasPrefix(r.stdout, "held 0, free 512,") {
		t.Fatalf("lease ls after migrate: %v", r)
	}
}

// TestMySQLURL: --driver mysql accepts the quickstart's DATABASE_URL
// spellings, mysql://DSN and mysql://USER@HOST:PORT/DB (and mariadb://), as
// well as a plain go-sql-driver DSN.
func TestMySQLURL(t *testing.T) {
	db := testenv.MySQL(t) // skips (or fails when required) without MariaDB
	cfg, err := mysql.ParseDSN(testenv.MySQLDSN())
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.User
	if cfg.Passwd != "" {
		user += ":" + cfg.Passwd
	}
	table := testenv.Unique(t, "cli")
	t.Cleanup(func() {
		if _, err := db.Exec("DROP TABLE IF EXISTS " + table); err != nil {
			t.Error(err)
		}
	})
	for i, dsn := range []string{
		"mysql://" + testenv.MySQLDSN(),
		"mysql://" + user + "@" + cfg.Addr + "/" + cfg.DBName,
		"mariadb://" + user + "@tcp(" + cfg.Addr + ")/" + cfg.DBName,
		testenv.MySQLDSN(),
	} {
		flags := []string{"--driver", "mysql", "--dsn", dsn, "--table", table}
		if i == 0 {
			if r := cli("", append([]string{"lease", "migrate"}, flags...)...); r.code != 0 || r.stderr != "" {
				t.Fatalf("lease migrate --dsn %s: %v", dsn, r)
			}
		}
		if r := cli("", append([]string{"lease", "ls"}, flags...)...); r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "held 0, free 512,") {
			t.Errorf("lease ls --dsn %s: %v", dsn, r)
		}
	}
}
