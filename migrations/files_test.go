package migrations_test

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/once-go/once/migrations"
)

var dialects = []migrations.Dialect{migrations.Postgres, migrations.MySQL, migrations.SQLite}

// golang-migrate's file name pattern: {version}_{title}.{up|down}.{ext}.
var migrateName = regexp.MustCompile(`^[0-9]+_[a-z0-9_]+\.(up|down)\.sql$`)

func TestFiles(t *testing.T) {
	for _, d := range dialects {
		sub, err := migrations.Files(d)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := fs.ReadDir(sub, ".")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if !migrateName.MatchString(e.Name()) {
				t.Errorf("%v: %s is not in golang-migrate naming", d, e.Name())
			}
			names = append(names, e.Name())
		}
		want := "000001_create_once_leases.down.sql 000001_create_once_leases.up.sql 000002_add_holder.down.sql 000002_add_holder.up.sql"
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%v: files %s; want %s", d, got, want)
		}
		up, _ := fs.ReadFile(migrations.FS(), d.String()+"/000001_create_once_leases.up.sql")
		for _, col := range []string{"id SMALLINT", "token", "expires_at", "lock_version INTEGER NOT NULL DEFAULT 0", "once_leases"} {
			if !strings.Contains(string(up), col) {
				t.Errorf("%v: up file lacks %q", d, col)
			}
		}
	}
	if _, err := migrations.Files(0); !errors.Is(err, migrations.ErrConfig) {
		t.Errorf("Files(0) error = %v", err)
	}
}

func TestStatements(t *testing.T) {
	for _, d := range dialects {
		up, err := migrations.Statements(d, "no_noncense_leases", true)
		if err != nil {
			t.Fatal(err)
		}
		if len(up) != 3 || !strings.HasPrefix(up[0], "CREATE TABLE IF NOT EXISTS ") || !strings.HasPrefix(up[1], "INSERT ") ||
			!strings.HasPrefix(up[2], "ALTER TABLE ") || !strings.Contains(up[2], "ADD COLUMN") || !strings.Contains(up[2], "holder") {
			t.Errorf("%v up statements: %q", d, up)
		}
		down, err := migrations.Statements(d, "", false)
		if err != nil {
			t.Fatal(err)
		}
		q, _ := migrations.QuoteTable(d, "once_leases")
		if len(down) != 1 || down[0] != "DROP TABLE IF EXISTS "+q {
			t.Errorf("%v down statements: %q", d, down)
		}
		for _, s := range append(up, down...) {
			if strings.Contains(s, "--") || strings.HasSuffix(s, ";") {
				t.Errorf("%v: statement not clean: %q", d, s)
			}
			if strings.Contains(s, "once_leases") && !strings.Contains(s, q) {
				t.Errorf("%v: unsubstituted table name in %q", d, s)
			}
		}
	}
}
