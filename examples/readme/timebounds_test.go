package main

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	f, err := nonce.New(nonce.Config{MachineID: 9, Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	defer once.SetGenerator(nil)

	db := testenv.SQLite(t)
	if _, err := db.Exec("CREATE TABLE orders (id BIGINT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	var made []OrderID
	for _, at := range times {
		mu.Lock()
		now = at
		mu.Unlock()
		id, err := once.NewAs[OrderID]()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO orders (id) VALUES (?)", id); err != nil {
			t.Fatal(err)
		}
		made = append(made, id)
	}
	ids, placed, err := ordersOn(t.Context(), db, day)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[0] != made[1] || ids[1] != made[2] || ids[2] != made[3] {
		t.Fatalf("orders on %v: %v, want %v", day, ids, made[1:4])
	}
	for i, at := range placed {
		if !at.Equal(times[i+1]) {
			t.Errorf("order %d placed %v, want %v", i, at, times[i+1])
		}
	}
	if _, _, err := ordersOn(t.Context(), db, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)); !errors.Is(err, once.ErrTimeRange) {
		t.Errorf("a day in 2024: %v, want ErrTimeRange", err)
	}
}

// TestSQLPage runs the SQL blocks of docs/sql.md, each on the database its
// first line names ("-- PostgreSQL", "-- MySQL"), in a schema or database
// of its own with the functions installed (on PostgreSQL by the
// sql-install region) and a users table holding one row. A statement
// followed by "-- → X" must answer X in its first column.
func TestSQLPage(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "sql.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(page)
	blocks := map[string][]string{}
	for _, b := range strings.Split(section, "```sql\n")[1:] {
		b, _, _ = strings.Cut(b, "```")
		head, body, _ := strings.Cut(b, "\n")
		blocks[head] = append(blocks[head], body)
	}
	if len(blocks["-- PostgreSQL"]) == 0 || len(blocks["-- MySQL"]) == 0 || len(blocks) != 2 {
		t.Fatalf("SQL blocks by first line: %v keys; want -- PostgreSQL and -- MySQL only", len(blocks))
	}
	for _, c := range []struct {
		head  string
		setup func(t *testing.T) *sql.DB
	}{
		{"-- PostgreSQL", func(t *testing.T) *sql.DB {
			db, _ := testenv.PostgresSchema(t, "rdsql")
			if err := installSQLFunctions(t.Context(), db); err != nil {
				t.Fatal(err)
			}
			return db
		}},
		{"-- MySQL", func(t *testing.T) *sql.DB {
			db, _ := testenv.MySQLDatabase(t, "rdsql")
			if err := migrations.InstallFunctions(t.Context(), db, migrations.MySQL); err != nil {
				t.Fatal(err)
			}
			return db
		}},
	} {
		t.Run(strings.TrimPrefix(c.head, "-- "), func(t *testing.T) {
			db := c.setup(t)
			for _, s := range []string{"CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR(100))",
				"INSERT INTO users VALUES (-3744495160545771519, 'ada@example.com')"} {
				if _, err := db.Exec(s); err != nil {
					t.Fatal(err)
				}
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
// code ends in ";"; "-- → X" after it is its expected answer; other
// comment lines are dropped.
func sqlStatements(block string) []statement {
	var out []statement
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		code, comment, _ := strings.Cut(line, "--")
		if strings.TrimSpace(code) == "" {
			continue
		}
		cur.WriteString(code + "\n")
		if strings.HasSuffix(strings.TrimSpace(code), ";") {
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
		if _, err := db.Exec(st); err != nil {
			t.Errorf("%s: %v", st, err)
		}
		return
	}
	rows, err := db.Query(st)
	if err != nil {
		t.Errorf("%s: %v", st, err)
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
		if err := rows.Scan(ptrs...); err != nil {
			t.Errorf("%s: %v", st, err)
			return
		}
		if first && want != "" {
			if got := sqlText(vals[0]); got != want {
				t.Errorf("%s = %s, docs/sql.md says %s", st, got, want)
			}
		}
		first = false
	}
	if err := rows.Err(); err != nil {
		t.Errorf("%s: %v", st, err)
	}
	if first && want != "" {
		t.Errorf("%s: no row, docs/sql.md says %s", st, want)
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
