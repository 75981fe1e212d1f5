package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestTimeBoundsRegion runs the time-bounds region (docs/ids.md) on SQLite:
// orders placed just before, during and just after a day, by a sortable
// factory with a manual clock; the region returns exactly the day's.
func TestTimeBoundsRegion(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	times := []time.Time{day.Add(-time.Millisecond), day, day.Add(12 * time.Hour), day.Add(24*time.Hour - time.Millisecond), day.Add(24 * time.Hour)}
	var mu sync.Mutex
	now := times[0]
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 9, Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	require.NoError(t, err)
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)

	db := testenv.SQLite(t)
	_, err = db.Exec("CREATE TABLE orders (id BIGINT PRIMARY KEY)")
	require.NoError(t, err)
	var made []OrderID
	for _, at := range times {
		mu.Lock()
		now = at
		mu.Unlock()
		id, err := once.NewAs[OrderID]()
		require.NoError(t, err)
		_, err = db.Exec("INSERT INTO orders (id) VALUES (?)", id)
		require.NoError(t, err)
		made = append(made, id)
	}
	ids, placed, err := ordersOn(t.Context(), db, day)
	require.NoError(t, err)
	require.Equal(t, made[1:4], ids, "orders on %v", day)
	for i, at := range placed {
		assert.WithinDuration(t, times[i+1], at, 0, "order %d placed", i)
	}
	_, _, err = ordersOn(t.Context(), db, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	assert.ErrorIs(t, err, once.ErrTimeRange, "a day in 2024")
}

// TestSQLPage runs the SQL blocks of docs/sql.md, each on the database its
// first line names ("-- PostgreSQL", "-- MySQL"), in a schema or database
// of its own with the functions installed (on PostgreSQL by the
// sql-install region) and a users table holding one row. A statement
// followed by "-- → X" must answer X in its first column.
func TestSQLPage(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "sql.md"))
	require.NoError(t, err)
	section := string(page)
	blocks := map[string][]string{}
	for _, b := range strings.Split(section, "```sql\n")[1:] {
		b, _, _ = strings.Cut(b, "```")
		head, body, _ := strings.Cut(b, "\n")
		blocks[head] = append(blocks[head], body)
	}
	require.NotEmpty(t, blocks["-- PostgreSQL"], "SQL blocks whose first line is -- PostgreSQL")
	require.NotEmpty(t, blocks["-- MySQL"], "SQL blocks whose first line is -- MySQL")
	require.Len(t, blocks, 2, "SQL blocks by first line; want -- PostgreSQL and -- MySQL only")
	for _, c := range []struct {
		head  string
		setup func(t *testing.T) *sql.DB
	}{
		{"-- PostgreSQL", func(t *testing.T) *sql.DB {
			db, _ := testenv.PostgresSchema(t, "rdsql")
			require.NoError(t, installSQLFunctions(t.Context(), db))
			return db
		}},
		{"-- MySQL", func(t *testing.T) *sql.DB {
			db, _ := testenv.MySQLDatabase(t, "rdsql")
			require.NoError(t, migrations.InstallFunctions(t.Context(), db, migrations.MySQL))
			return db
		}},
	} {
		t.Run(strings.TrimPrefix(c.head, "-- "), func(t *testing.T) {
			db := c.setup(t)
			for _, s := range []string{"CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR(100))",
				"INSERT INTO users VALUES (-3744495160545771519, 'ada@example.com')"} {
				_, err := db.Exec(s)
				require.NoError(t, err)
			}
			n := 0
			for _, block := range blocks[c.head] {
				for _, st := range sqlStatements(block) {
					runStatement(t, db, st.sql, st.want)
					n++
				}
			}
			t.Logf("%d statements", n)
		})
	}
}

type statement struct{ sql, want string }

// sqlStatements splits an SQL block of the page: a statement ends with a line whose
// code ends in ";" outside a $$-quoted body (a DO block's or a function's);
// "-- → X" after it is its expected answer; other comment lines are
// dropped.
func sqlStatements(block string) []statement {
	var out []statement
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		code, comment, _ := strings.Cut(line, "--")
		if strings.TrimSpace(code) == "" {
			continue
		}
		cur.WriteString(code + "\n")
		quoted := strings.Count(cur.String(), "$$")%2 == 1
		if !quoted && strings.HasSuffix(strings.TrimSpace(code), ";") {
			want, _ := strings.CutPrefix(strings.TrimSpace(comment), "→ ")
			if !strings.HasPrefix(strings.TrimSpace(comment), "→") {
				want = ""
			}
			out = append(out, statement{strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"), want})
			cur.Reset()
		}
	}
	return out
}

// runStatement runs st; a SELECT's first column of its first row must
// read want when want is set.
func runStatement(t *testing.T, db *sql.DB, st, want string) {
	t.Helper()
	if !strings.HasPrefix(st, "SELECT") {
		_, err := db.Exec(st)
		assert.NoError(t, err, "%s", st)
		return
	}
	rows, err := db.Query(st)
	if !assert.NoError(t, err, st) {
		return
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	first := true
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !assert.NoError(t, rows.Scan(ptrs...), st) {
			return
		}
		if first && want != "" {
			assert.Equal(t, want, sqlText(vals[0]), "%s: docs/sql.md says", st)
		}
		first = false
	}
	assert.NoError(t, rows.Err(), "%s", st)
	if first && want != "" {
		assert.Fail(t, "no row", "%s: docs/sql.md says %s", st, want)
	}
}

// sqlText spells a scanned value as docs/sql.md shows it.
func sqlText(v any) string {
	switch v := v.(type) {
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04:05.999999")
	case []byte:
		return string(bytes.TrimSpace(v))
	}
	return fmt.Sprint(v)
}

// TestSQLPageMasked checks the masked spellings docs/sql.md quotes: with
// the quickstart's demo key, usr_L4Pyvoulbog masks the stored value of
// usr_zAjhfZyAAAE (the users row of its SQL blocks), and read as plain
// url64 it is another value.
func TestSQLPageMasked(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "sql.md"))
	require.NoError(t, err)
	f, err := nonce.New(nonce.Config{Fixed: true, BaseKey: []byte(exampledb.DemoKey), AllowDemoKey: true})
	require.NoError(t, err)
	var demo once.Binding
	demo.Set(f)
	masked := once.Options{Prefix: "usr_", Mask: true, Generator: &demo}
	plain := once.Options{Prefix: "usr_"}
	stored, err := plain.ParseAny("usr_zAjhfZyAAAE")
	require.NoError(t, err)
	require.Equal(t, int64(-3744495160545771519), stored.Int64(), "the users row of docs/sql.md")
	text, err := masked.AppendText(nil, stored)
	require.NoError(t, err)
	assert.Equal(t, "usr_L4Pyvoulbog", string(text), "the masked spelling of usr_zAjhfZyAAAE")
	assert.Contains(t, string(page), "usr_"+string(text[4:]), "docs/sql.md quotes the masked spelling")
	other, err := plain.ParseAny(string(text))
	require.NoError(t, err)
	assert.NotEqual(t, stored, other, "the masked spelling read as plain url64")
}
