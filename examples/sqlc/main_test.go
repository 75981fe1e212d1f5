package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			require.NoError(t, run(context.Background(), &out, url, ""), "output:\n%s", out.String())
			t.Cleanup(func() { once.DefaultBinding().Set(nil) })
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
			for label, n := range map[string]int{"user": 2, "post": 1, "GetPost": 1, "ByAuthor": 1} {
				require.Len(t, lines[label], n, "%s lines in the output:\n%s", label, out.String())
			}
			for _, u := range []struct {
				js string
				v  any
			}{{lines["user"][0], &users[0]}, {lines["user"][1], &users[1]}, {lines["post"][0], &notes},
				{lines["GetPost"][0], &engine}, {lines["ByAuthor"][0], &byAuthor}} {
				require.NoError(t, json.Unmarshal([]byte(u.js), u.v), "%s", u.js)
			}
			ada, grace := users[0].ID, users[1].ID
			assert.False(t, ada.IsZero() || grace.IsZero(), "users %v %v", ada, grace)
			assert.NotEqual(t, ada, grace, "the two users' IDs")
			assert.Equal(t, ada, notes.AuthorID, "post author")
			assert.Equal(t, ada, engine.AuthorID, "post author")
			assert.NotContains(t, lines["post"][0], "editor_id", "a post without editor")
			assert.Nil(t, notes.EditorID, "a post without editor shows %s", lines["post"][0])
			if assert.NotNil(t, engine.EditorID, "GetPost shows %s, want an editor", lines["GetPost"][0]) {
				assert.Equal(t, grace, *engine.EditorID, "GetPost shows %s: editor", lines["GetPost"][0])
			}
			assert.Equal(t, "Engine", engine.Title, "GetPost shows %s: title", lines["GetPost"][0])
			if assert.Len(t, byAuthor, 2, "ByAuthor shows %s", lines["ByAuthor"][0]) {
				assert.Equal(t, notes.ID, byAuthor[0].ID, "ByAuthor shows %s: first post", lines["ByAuthor"][0])
				assert.Equal(t, engine.ID, byAuthor[1].ID, "ByAuthor shows %s: second post", lines["ByAuthor"][0])
			}
			assert.Contains(t, strings.Join(lines["zero"], ""), `the zero ID ("no ID") has no database value`, "zero ID insert printed")

			// The tables hold the values behind the printed IDs, and no row
			// for the insert without an ID.
			db, dialect, _, err := openDB(url)
			require.NoError(t, err)
			defer db.Close()
			users2, posts := count(t, db, "sqlc_users"), count(t, db, "sqlc_posts")
			assert.Equal(t, 2, users2, "users in the table")
			assert.Equal(t, 2, posts, "posts in the table")
			var editor sql.NullInt64
			q := `SELECT editor_id FROM sqlc_posts WHERE id = ` + map[migrations.Dialect]string{migrations.Postgres: "$1", migrations.SQLite: "?"}[dialect]
			if assert.NoError(t, db.QueryRow(q, engine.ID.Int64()).Scan(&editor), "stored editor of %v", engine.ID) {
				assert.Equal(t, grace.Int64(), editor.Int64, "stored editor of %v", engine.ID)
			}
			if assert.NoError(t, db.QueryRow(q, notes.ID.Int64()).Scan(&editor), "stored editor of %v", notes.ID) {
				assert.False(t, editor.Valid, "stored editor of %v: %v, want NULL", notes.ID, editor)
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
	_, err := db.Exec(`CREATE SCHEMA ` + schema)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		assert.NoError(t, err)
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
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	schema := map[migrations.Dialect]string{migrations.Postgres: postgresSchema, migrations.SQLite: sqliteSchema}[dialect]
	_, err = db.Exec(schema)
	require.NoError(t, err)
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1, BaseKey: []byte(demoKey), AllowDemoKey: true})
	require.NoError(t, err)
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	return db
}

func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
	return n
}
