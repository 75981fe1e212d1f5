package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/once-go/once/examples/sqlc/ids"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// post is what the program prints for a post, read back with the typed IDs.
type post struct {
	ID       ids.PostID  `json:"id"`
	AuthorID ids.UserID  `json:"author_id"`
	EditorID *ids.UserID `json:"editor_id"`
	Title    string      `json:"title"`
}

// TestRun runs the program on each engine and checks what it printed
// against what the tables hold.
func TestRun(t *testing.T) {
	for _, engine := range []string{"postgres", "sqlite"} {
		t.Run(engine, func(t *testing.T) {
			url := testURL(t, engine)
			var out bytes.Buffer
			if err := run(context.Background(), &out, url, ""); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			t.Cleanup(func() { once.SetGenerator(nil) })
			lines := map[string][]string{}
			for line := range strings.Lines(out.String()) {
				label, rest, _ := strings.Cut(line, " ")
				lines[label] = append(lines[label], strings.TrimSpace(rest))
			}
			var users [2]struct {
				ID    ids.UserID `json:"id"`
				Email string     `json:"email"`
			}
			var notes, engine post
			var byAuthor []post
			if len(lines["user"]) != 2 || len(lines["post"]) != 1 || len(lines["GetPost"]) != 1 || len(lines["ByAuthor"]) != 1 {
				t.Fatalf("unexpected output:\n%s", out.String())
			}
			for _, u := range []struct {
				js string
				v  any
			}{{lines["user"][0], &users[0]}, {lines["user"][1], &users[1]}, {lines["post"][0], &notes},
				{lines["GetPost"][0], &engine}, {lines["ByAuthor"][0], &byAuthor}} {
				if err := json.Unmarshal([]byte(u.js), u.v); err != nil {
					t.Fatalf("%s: %v", u.js, err)
				}
			}
			ada, grace := users[0].ID, users[1].ID
			if ada.IsZero() || grace.IsZero() || ada == grace || notes.AuthorID != ada || engine.AuthorID != ada {
				t.Errorf("users %v %v, post authors %v %v", ada, grace, notes.AuthorID, engine.AuthorID)
			}
			if strings.Contains(lines["post"][0], "editor_id") || notes.EditorID != nil {
				t.Errorf("a post without editor shows %s", lines["post"][0])
			}
			if engine.EditorID == nil || *engine.EditorID != grace || engine.Title != "Engine" {
				t.Errorf("GetPost shows %s, want editor %v", lines["GetPost"][0], grace)
			}
			if len(byAuthor) != 2 || byAuthor[0].ID != notes.ID || byAuthor[1].ID != engine.ID {
				t.Errorf("ByAuthor shows %s", lines["ByAuthor"][0])
			}
			if z := strings.Join(lines["zero"], ""); !strings.Contains(z, `the zero ID ("no ID") has no database value`) {
				t.Errorf("zero ID insert printed %q", z)
			}

			// The tables hold the values behind the printed IDs, and no row
			// for the insert without an ID.
			db, dialect, _, err := openDB(url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			users2, posts := count(t, db, "sqlc_users"), count(t, db, "sqlc_posts")
			if users2 != 2 || posts != 2 {
				t.Errorf("tables hold %d users and %d posts, want 2 and 2", users2, posts)
			}
			var editor sql.NullInt64
			q := `SELECT editor_id FROM sqlc_posts WHERE id = ` + map[migrations.Dialect]string{migrations.Postgres: "$1", migrations.SQLite: "?"}[dialect]
			if err := db.QueryRow(q, engine.ID.Int64()).Scan(&editor); err != nil || editor.Int64 != grace.Int64() {
				t.Errorf("stored editor of %v: %v (%v), want %d", engine.ID, editor, err, grace.Int64())
			}
			if err := db.QueryRow(q, notes.ID.Int64()).Scan(&editor); err != nil || editor.Valid {
				t.Errorf("stored editor of %v: %v (%v), want NULL", notes.ID, editor, err)
			}
		})
	}
}

// testURL returns a DATABASE_URL for engine: a fresh SQLite file, or a
// PostgreSQL schema of its own (first on the search path, dropped at the
// end of the test), so that the fixed table names meet no other test's.
func testURL(t *testing.T, engine string) string {
	t.Helper()
	if engine == "sqlite" {
		return "sqlite:" + testenv.SQLitePath(t)
	}
	db := testenv.Postgres(t)
	schema := testenv.Unique(t, "sqlc")
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Error(err)
		}
	})
	sep := "?"
	if strings.Contains(testenv.PostgresDSN(), "?") {
		sep = "&"
	}
	return testenv.PostgresDSN() + sep + "search_path=" + schema
}

// openTest opens engine's test database with the example's tables and a
// generator that makes IDs without a lease (machine ID 1: the IDs go only
// into this test's tables).
func openTest(t *testing.T, engine string) *sql.DB {
	t.Helper()
	db, dialect, _, err := openDB(testURL(t, engine))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema := map[migrations.Dialect]string{migrations.Postgres: postgresSchema, migrations.SQLite: sqliteSchema}[dialect]
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	f, err := nonce.New(nonce.Config{MachineID: 1, BaseKey: []byte(demoKey)})
	if err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
	return db
}

func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
