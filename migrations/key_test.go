package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// TestCheckKey: CheckKey accepts a table whose id is unique on its own
// (primary key, unique index or constraint on id alone, SQLite's INTEGER
// PRIMARY KEY) and refuses, naming the table and the fix, one where it is
// not: no key, a non-unique index, a unique key over two columns, a
// partial unique index, a unique index on an expression of id.
func TestCheckKey(t *testing.T) {
	cols := map[migrations.Dialect]string{
		migrations.Postgres: "token BYTEA, expires_at TIMESTAMP(6) NOT NULL, lock_version INTEGER NOT NULL DEFAULT 0",
		migrations.MySQL:    "token VARBINARY(16), expires_at DATETIME(6) NOT NULL, lock_version INTEGER NOT NULL DEFAULT 0",
		migrations.SQLite:   "token BLOB, expires_at TEXT NOT NULL, lock_version INTEGER NOT NULL DEFAULT 0",
	}
	type variant struct {
		name string
		id   string // id's declaration
		more string // statement run after CREATE TABLE (%s: the table), if any
		ok   bool
	}
	common := []variant{
		{"primary key", "id SMALLINT PRIMARY KEY", "", true},
		{"unique constraint", "id SMALLINT NOT NULL UNIQUE", "", true},
		{"unique index", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q (id)", true},
		{"no key", "id SMALLINT NOT NULL", "", false},
		{"plain index", "id SMALLINT NOT NULL", "CREATE INDEX %s_k ON %q (id)", false},
		{"two-column key", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q (id, lock_version)", false},
		{"two-column primary key", "id SMALLINT NOT NULL", "ALTER TABLE %q ADD PRIMARY KEY (id, lock_version)", false},
	}
	extra := map[migrations.Dialect][]variant{
		migrations.Postgres: {
			{"unique index with INCLUDE", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q (id) INCLUDE (token)", true},
			{"partial unique index", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q (id) WHERE id >= 0", false},
			{"expression unique index", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q ((id + 0))", false},
		},
		migrations.SQLite: {
			{"integer primary key (rowid)", "id INTEGER PRIMARY KEY", "", true},
			{"partial unique index", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q (id) WHERE id >= 0", false},
			{"expression unique index", "id SMALLINT NOT NULL", "CREATE UNIQUE INDEX %s_k ON %q ((id + 0))", false},
		},
	}
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := open(t, d), ctxT(t)
			for _, v := range append(common, extra[d]...) {
				if d == migrations.SQLite && strings.HasPrefix(v.more, "ALTER TABLE") {
					continue // SQLite cannot add a primary key to a table
				}
				table := testenv.Unique(t, "key")
				q, _ := migrations.QuoteTable(d, table)
				t.Cleanup(func() { db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+q) })
				_, err := db.ExecContext(ctx, "CREATE TABLE "+q+" ("+v.id+", "+cols[d]+")")
				require.NoError(t, err)
				if v.more != "" {
					stmt := strings.ReplaceAll(strings.ReplaceAll(v.more, "%s", table), "%q", q)
					_, err := db.ExecContext(ctx, stmt)
					require.NoError(t, err, "%s", stmt)
				}
				err = migrations.CheckKey(ctx, db, d, table)
				if v.ok {
					assert.NoError(t, err, "%s: want accepted", v.name)
				} else if assert.ErrorIs(t, err, migrations.ErrConfig, v.name) {
					assert.Contains(t, err.Error(), table, "%s: the error names the table", v.name)
					assert.Contains(t, err.Error(), "CREATE UNIQUE INDEX", "%s: the error names the fix", v.name)
				}
			}
			// A table that does not exist has nothing to check.
			assert.NoError(t, migrations.CheckKey(ctx, db, d, testenv.Unique(t, "none")), "missing table")
		})
	}
}
