package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestQuickstart runs the quickstart on SQLite, PostgreSQL and MariaDB.
func TestQuickstart(t *testing.T) {
	for _, c := range []struct {
		name string
		url  func(t *testing.T) (string, *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			path := filepath.Join(t.TempDir(), "qs.db")
			db, err := sql.Open("sqlite", "file:"+path)
			require.NoError(t, err)
			t.Cleanup(func() { db.Close() })
			return "sqlite:" + path, db
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) { return testenv.PostgresDSN(), testenv.Postgres(t) }},
		{"mariadb", func(t *testing.T) (string, *sql.DB) { return "mysql://" + testenv.MySQLDSN(), testenv.MySQL(t) }},
		{"mariadb-plain-dsn", func(t *testing.T) (string, *sql.DB) { return testenv.MySQLDSN(), testenv.MySQL(t) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, db := c.url(t)
			table := testenv.Unique(t, "qs")
			t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })
			var out bytes.Buffer
			require.NoError(t, run(context.Background(), &out, url, "", table), "output:\n%s", out.String())
			s := out.String()
			t.Logf("\n%s", s)
			rows := regexp.MustCompile(`(?m)^\{"id":"usr_[A-Za-z0-9_-]{11}","email":"[a-z]+@example\.com"\}\s+-?\d+$`).FindAllString(s, -1)
			assert.Len(t, rows, 3, "user rows in the output")
			assert.Contains(t, s, "GET /users/usr_", "the output")
			assert.True(t, strings.HasSuffix(s, "lease     released\n"), "the output does not end with the released lease:\n%s", s)
			m := regexp.MustCompile(`machine ID (\d+)`).FindStringSubmatch(s)
			require.NotNil(t, m, "no machine ID in output")
			if c.name == "sqlite" {
				// The file is ours alone: the lease must be free again.
				st, err := sqllease.New(db, sqllease.Options{Dialect: migrations.SQLite})
				require.NoError(t, err)
				all, err := st.Rows(context.Background())
				require.NoError(t, err)
				id, _ := strconv.Atoi(m[1])
				assert.False(t, all[id].Held, "lease row %d after exit: %+v, want released", id, all[id])
				assert.NotNil(t, all[id].Token, "lease row %d after exit: %+v, want taken once", id, all[id])
			}
		})
	}
}
