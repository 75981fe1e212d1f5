package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
	"github.com/once-go/once/oncesql"
)

// regionDirs are the programs the documentation's Go blocks come from:
// this one; examples/api, whose lease and shutdown code is the README's (a
// region in both must be the same in both); and the modules of
// examples/huma and examples/graphql.
var regionDirs = []string{".", filepath.Join("..", "api"), filepath.Join("..", "huma"), filepath.Join("..", "graphql", "ids")}

// TestDocSnippets checks that every ```go block of the documentation
// (README.md, ARCHITECTURE.md, CONTRIBUTING.md and every Markdown file
// under docs/) is a region of one of regionDirs: the line before the
// fence is <!-- readme:NAME -->, and the block's text equals region NAME
// (both without their common leading tabs). A block without the marker, or
// naming no region, fails; so does a region no page shows.
func TestDocSnippets(t *testing.T) {
	regions, err := readRegions(regionDirs...)
	require.NoError(t, err)
	files, err := docFiles(repoRoot)
	require.NoError(t, err)
	shown := map[string]bool{}
	for _, path := range files {
		for _, name := range checkSnippets(t, path, regions) {
			shown[name] = true
		}
	}
	for _, name := range sortedKeys(regions) {
		assert.True(t, shown[name], "region %s is shown on no page: add <!-- readme:%s --> and a ```go block with it to README.md or a page under docs/", name, name)
	}
}

// checkSnippets checks the ```go blocks of the Markdown file at path
// against regions and returns the names of the regions it shows.
func checkSnippets(t *testing.T, path string, regions map[string]string) []string {
	t.Helper()
	md, err := os.ReadFile(path)
	require.NoError(t, err)
	blocks, err := goBlocks(string(md))
	if !assert.NoError(t, err, path) {
		return nil
	}
	var shown []string
	for _, b := range blocks {
		if !assert.NotEmpty(t, b.name, "%s:%d: ```go block without a <!-- readme:NAME --> line just before it; its first line: %q",
			path, b.line, firstLine(b.text)) {
			continue
		}
		shown = append(shown, b.name)
		want, ok := regions[b.name]
		if !assert.True(t, ok, "%s:%d: <!-- readme:%s --> names no region of %s (regions: %s)",
			path, b.line, b.name, strings.Join(regionDirs, ", "), strings.Join(sortedKeys(regions), ", ")) {
			continue
		}
		got := dedent(b.text)
		assert.Equal(t, want, got, "%s:%d: block readme:%s differs from its region: %s", path, b.line, b.name, firstDifference(got, want))
	}
	return shown
}

// testKey is the ONCE_KEY of the program tests: used as is, as the program
// must, it masks IDs the same way for the test's own factory.
const testKey = "kZ1bC9nq3wYV0m8fJp2sTt6uXe4yRa7hLd5gHc0vNiE="

// TestProgram runs the program with each ORM alone and with all three on
// SQLite, PostgreSQL and MariaDB, each run in a database (SQLite file,
// PostgreSQL schema, MariaDB database) of its own, and checks what it printed
// against what the tables hold.
func TestProgram(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(t *testing.T) (databaseURL string, check *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			path := testenv.SQLitePath(t)
			check, err := sql.Open("sqlite", testenv.SQLiteDSN(path))
			require.NoError(t, err)
			t.Cleanup(func() { check.Close() })
			return "sqlite:" + path, check
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			check, dsn := testenv.PostgresSchema(t, "readme")
			require.True(t, strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"), "ONCE_TEST_POSTGRES_DSN must be a postgres:// URL here, not %.30q", dsn)
			return dsn, check
		}},
		{"mariadb", func(t *testing.T) (string, *sql.DB) {
			check, dsn := testenv.MySQLDatabase(t, "readme")
			return "mysql://" + dsn, check
		}},
	} {
		for _, orms := range []string{"gorm", "bun", "sqlx", "sqlx,bun,gorm"} {
			t.Run(db.name+"/"+orms, func(t *testing.T) {
				databaseURL, check := db.open(t)
				out := runProgram(t, databaseURL, "-orm", orms)
				checkOutput(t, out, strings.Split(orms, ","), check)
			})
		}
		// The pieces oncesql.Start puts together, as docs/leases.md shows them.
		t.Run(db.name+"/by-hand", func(t *testing.T) {
			databaseURL, check := db.open(t)
			out := runProgram(t, databaseURL, "-by-hand", "-orm", "gorm,bun,sqlx")
			checkOutput(t, out, []string{"gorm", "bun", "sqlx"}, check)
		})
	}
}

// runProgram runs the program with DATABASE_URL and ONCE_KEY set and returns
// what it printed; afterwards once's default generator is a factory of the
// test's own with ONCE_KEY as its base key, for reading masked IDs.
func runProgram(t *testing.T, databaseURL string, args ...string) string {
	t.Helper()
	t.Setenv("DATABASE_URL", databaseURL)
	t.Setenv("ONCE_KEY", testKey)
	t.Setenv("ONCE_STATE_FILE", filepath.Join(t.TempDir(), "once-lease.json"))
	t.Setenv("ORM", "")
	var out bytes.Buffer
	err := run(context.Background(), &out, args)
	own, ferr := nonce.New(nonce.Config{Fixed: true, BaseKey: []byte(testKey)})
	require.NoError(t, ferr)
	once.DefaultBinding().Set(own)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	require.NoError(t, err, "run; output:\n%s", out.String())
	t.Logf("output:\n%s", out.String())
	return out.String()
}

var (
	machineLine = regexp.MustCompile(`^machine ID (\d+)$`)
	postLine    = regexp.MustCompile(`^(gorm|bun |sqlx)  (\{.*\})  (-?\d+)$`)
)

// checkOutput checks the program's output for orms against the tables check
// sees: per ORM two posts by one author, "Engine" edited by the author and
// "Notes" with no editor (no editor_id in JSON, NULL in the table), each
// JSON id the masked spelling of the stored bigint printed beside it; and the
// machine ID released.
func checkOutput(t *testing.T, out string, names []string, check *sql.DB) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	require.True(t, sc.Scan(), "no output")
	m := machineLine.FindStringSubmatch(sc.Text())
	require.NotNil(t, m, "first line %q, want machine ID N", sc.Text())
	machineID, _ := strconv.Atoi(m[1])
	seen := map[int64]bool{}
	for _, orm := range names {
		var posts []Post
		for range 2 {
			require.True(t, sc.Scan(), "%s: output ends early", orm)
			line := sc.Text()
			m := postLine.FindStringSubmatch(line)
			require.NotNil(t, m, "line %q, want a post line of %s", line, orm)
			require.Equal(t, orm, strings.TrimSpace(m[1]), "line %q, want a post line of %s", line, orm)
			var p Post
			require.NoError(t, json.Unmarshal([]byte(m[2]), &p), "%s", line)
			stored, err := strconv.ParseInt(m[3], 10, 64)
			require.NoError(t, err)
			assert.Equal(t, stored, p.ID.Int64(), "%s: the JSON id's stored value, want the printed stored id", line)
			assert.False(t, seen[stored], "%s: stored id %d seen before", line, stored)
			seen[stored] = true
			plain := once.FromInt64(stored).String()
			assert.NotContains(t, m[2], plain, "%s: the stored value's unmasked spelling is shown", line)
			var n int
			require.NoError(t, check.QueryRow(rebind(t, check, `SELECT COUNT(*) FROM `+orms[orm].posts+` WHERE id = ? AND author_id = ? AND title = ?`),
				stored, p.AuthorID.Int64(), p.Title).Scan(&n))
			assert.Equal(t, 1, n, "%s: rows in posts with id %d, author %d and title %q", line, stored, p.AuthorID.Int64(), p.Title)
			posts = append(posts, p)
		}
		engine, notes := posts[0], posts[1]
		assert.Equal(t, "Engine", engine.Title, "%s: first post", orm)
		if assert.NotNil(t, engine.EditorID, "%s: first post %+v, want Engine edited by its author", orm, engine) {
			assert.Equal(t, engine.AuthorID, *engine.EditorID, "%s: first post, want Engine edited by its author", orm)
		}
		assert.Equal(t, "Notes", notes.Title, "%s: second post", orm)
		assert.Nil(t, notes.EditorID, "%s: second post, want Notes with no editor", orm)
		assert.Equal(t, engine.AuthorID, notes.AuthorID, "%s: second post, want Notes by the same author", orm)
	}
	assert.Equal(t, len(names), strings.Count(out, `"editor_id"`), "editor_id shown, want once per ORM: never for Notes")
	if sc.Scan() {
		assert.Fail(t, "unexpected line", "%q", sc.Text())
	}
	for _, orm := range names {
		users, posts := strings.TrimSuffix(orms[orm].posts, "posts")+"users", orms[orm].posts
		for query, want := range map[string]int{
			`SELECT COUNT(*) FROM ` + users:                                  1,
			`SELECT COUNT(*) FROM ` + posts:                                  2,
			`SELECT COUNT(*) FROM ` + posts + ` WHERE editor_id IS NULL`:     1,
			`SELECT COUNT(*) FROM ` + posts + ` WHERE editor_id = author_id`: 1,
		} {
			var n int
			require.NoError(t, check.QueryRow(query).Scan(&n))
			assert.Equal(t, want, n, query)
		}
	}
	strategy, err := sqllease.New(check, sqllease.Options{})
	require.NoError(t, err)
	rows, err := strategy.Rows(context.Background())
	require.NoError(t, err)
	row := rows[machineID]
	assert.False(t, row.Held, "lease row %d after run: %+v, want released", machineID, row)
	assert.NotNil(t, row.Token, "lease row %d after run: %+v, want taken", machineID, row)
}

// rebind turns the ? placeholders of q into $1, $2, ... for PostgreSQL.
func rebind(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	d, err := migrations.DetectDialect(db)
	require.NoError(t, err)
	if d == migrations.Postgres {
		return sqlx.Rebind(sqlx.DOLLAR, q)
	}
	return q
}

// TestProgramErrors runs the program with bad input: each run fails with an
// error saying what was wrong, before it writes anything.
func TestProgramErrors(t *testing.T) {
	sqlite := "sqlite:" + testenv.SQLitePath(t)
	for _, c := range []struct {
		name, databaseURL, key string
		args                   []string
		want                   string
		is                     error
	}{
		{"unknown ORM", sqlite, testKey, []string{"-orm", "gorm,hibernate"}, `-orm: unknown ORM "hibernate"`, nil},
		{"bad flag", sqlite, testKey, []string{"-db", "x"}, "flag provided but not defined: -db", nil},
		{"unknown scheme", "redis://127.0.0.1:6379", testKey, nil, "DATABASE_URL: want postgres://", nil},
		{"no key", sqlite, "", nil, "Config.Key is empty", oncesql.ErrConfig},
		{"short key", sqlite, "0123456789abcdef", nil, "nonce: ", nonce.ErrConfig},
		{"no key, by hand", sqlite, "", []string{"-by-hand"}, "ONCE_KEY is not set", nil},
		{"short key, by hand", sqlite, "0123456789abcdef", []string{"-by-hand"}, "nonce: ", nonce.ErrConfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", c.databaseURL)
			t.Setenv("ONCE_KEY", c.key)
			t.Setenv("ORM", "")
			var out bytes.Buffer
			err := run(context.Background(), &out, c.args)
			if assert.Error(t, err, "want one containing %q", c.want) {
				assert.Contains(t, err.Error(), c.want, "the error")
				if c.is != nil {
					assert.ErrorIs(t, err, c.is, "the error")
				}
			}
			assert.Zero(t, out.Len(), "printed %q", out.String())
		})
	}
}
