package migrations_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/migrations"
)

var dialects = []migrations.Dialect{migrations.Postgres, migrations.MySQL, migrations.SQLite}

// golang-migrate's file name pattern: {version}_{title}.{up|down}.{ext}.
var migrateName = regexp.MustCompile(`^[0-9]+_[a-z0-9_]+\.(up|down)\.sql$`)

func TestFiles(t *testing.T) {
	for _, d := range dialects {
		sub, err := migrations.Files(d)
		require.NoError(t, err)
		entries, err := fs.ReadDir(sub, ".")
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			assert.Regexp(t, migrateName, e.Name(), "%v: %s is not in golang-migrate naming", d, e.Name())
			names = append(names, e.Name())
		}
		want := "000001_create_once_leases.down.sql 000001_create_once_leases.up.sql 000002_add_holder.down.sql 000002_add_holder.up.sql"
		assert.Equal(t, want, strings.Join(names, " "), "%v: files", d)
		up, _ := fs.ReadFile(migrations.FS(), d.String()+"/000001_create_once_leases.up.sql")
		for _, col := range []string{"id SMALLINT", "token", "expires_at", "lock_version INTEGER NOT NULL DEFAULT 0", "once_leases"} {
			assert.Contains(t, string(up), col, "%v: up file lacks %q", d, col)
		}
	}
	_, err := migrations.Files(0)
	assert.ErrorIs(t, err, migrations.ErrConfig, "Files(0) error")
}

func TestStatements(t *testing.T) {
	for _, d := range dialects {
		up, err := migrations.Statements(d, "no_noncense_leases", true)
		require.NoError(t, err)
		if assert.Len(t, up, 3, "%v up statements", d) {
			assert.True(t, strings.HasPrefix(up[0], "CREATE TABLE IF NOT EXISTS "), "%v up statement 1: %q", d, up[0])
			assert.True(t, strings.HasPrefix(up[1], "INSERT "), "%v up statement 2: %q", d, up[1])
			assert.True(t, strings.HasPrefix(up[2], "ALTER TABLE "), "%v up statement 3: %q", d, up[2])
			assert.Contains(t, up[2], "ADD COLUMN", "%v up statement 3", d)
			assert.Contains(t, up[2], "holder", "%v up statement 3", d)
		}
		down, err := migrations.Statements(d, "", false)
		require.NoError(t, err)
		q, _ := migrations.QuoteTable(d, "once_leases")
		assert.Equal(t, []string{"DROP TABLE IF EXISTS " + q}, down, "%v down statements", d)
		for _, s := range append(up, down...) {
			assert.NotContains(t, s, "--", "%v: statement not clean", d)
			assert.False(t, strings.HasSuffix(s, ";"), "%v: statement not clean: %q", d, s)
			if strings.Contains(s, "once_leases") {
				assert.Contains(t, s, q, "%v: unsubstituted table name", d)
			}
		}
	}
}
