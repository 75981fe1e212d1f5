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
			if err != nil {
				t.Fatal(err)
			}
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
			if err := run(context.Background(), &out, url, "", table); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			s := out.String()
			t.Logf("\n%s", s)
			rows := regexp.MustCompile(`(?m)^\{"id":"usr_[A-Za-z0-9_-]{11}","email":"[a-z]+@example\.com"\}\s+-?\d+$`).FindAllString(s, -1)
			if len(rows) != 3 || !strings.Contains(s, "GET /users/usr_") || !strings.HasSuffix(s, "lease     released\n") {
				t.Errorf("unexpected output:\n%s", s)
			}
			m := regexp.MustCompile(`machine ID (\d+)`).FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("no machine ID in output")
			}
			if c.name == "sqlite" {
				// The file is ours alone: the lease must be free again.
				st, err := sqllease.New(db, sqllease.Options{Dialect: migrations.SQLite})
				if err != nil {
					t.Fatal(err)
				}
				all, err := st.Rows(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				id, _ := strconv.Atoi(m[1])
				if all[id].Held || all[id].Token == nil {
					t.Errorf("lease row %d after exit: %+v, want taken once and released", id, all[id])
				}
			}
		})
	}
}
