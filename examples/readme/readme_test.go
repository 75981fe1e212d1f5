package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
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
	if err != nil {
		t.Fatal(err)
	}
	files, err := docFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, path := range files {
		for _, name := range checkSnippets(t, path, regions) {
			shown[name] = true
		}
	}
	for _, name := range sortedKeys(regions) {
		if !shown[name] {
			t.Errorf("region %s is shown on no page: add <!-- readme:%s --> and a ```go block with it to README.md or a page under docs/", name, name)
		}
	}
}

// checkSnippets checks the ```go blocks of the Markdown file at path
// against regions and returns the names of the regions it shows.
func checkSnippets(t *testing.T, path string, regions map[string]string) []string {
	t.Helper()
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := goBlocks(string(md))
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return nil
	}
	var shown []string
	for _, b := range blocks {
		if b.name == "" {
			t.Errorf("%s:%d: ```go block without a <!-- readme:NAME --> line just before it; its first line: %q",
				path, b.line, firstLine(b.text))
			continue
		}
		shown = append(shown, b.name)
		want, ok := regions[b.name]
		if !ok {
			t.Errorf("%s:%d: <!-- readme:%s --> names no region of %s (regions: %s)",
				path, b.line, b.name, strings.Join(regionDirs, ", "), strings.Join(sortedKeys(regions), ", "))
			continue
		}
		if got := dedent(b.text); got != want {
			t.Errorf("%s:%d: block readme:%s differs from its region: %s\nthe region reads:\n%s",
				path, b.line, b.name, firstDifference(got, want), want)
		}
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
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { check.Close() })
			return "sqlite:" + path, check
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			check, dsn := testenv.PostgresSchema(t, "readme")
			if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
				t.Fatalf("ONCE_TEST_POSTGRES_DSN must be a postgres:// URL here, not %.30q", dsn)
			}
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
	own, ferr := nonce.New(nonce.Config{BaseKey: []byte(testKey)})
	if ferr != nil {
		t.Fatal(ferr)
	}
	once.SetGenerator(own)
	t.Cleanup(func() { once.SetGenerator(nil) })
	if err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
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
	if !sc.Scan() {
		t.Fatalf("no output")
	}
	m := machineLine.FindStringSubmatch(sc.Text())
	if m == nil {
		t.Fatalf("first line %q, want machine ID N", sc.Text())
	}
	machineID, _ := strconv.Atoi(m[1])
	seen := map[int64]bool{}
	for _, orm := range names {
		var posts []Post
		for range 2 {
			if !sc.Scan() {
				t.Fatalf("%s: output ends early", orm)
			}
			line := sc.Text()
			m := postLine.FindStringSubmatch(line)
			if m == nil || strings.TrimSpace(m[1]) != orm {
				t.Fatalf("line %q, want a post line of %s", line, orm)
			}
			var p Post
			if err := json.Unmarshal([]byte(m[2]), &p); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			stored, err := strconv.ParseInt(m[3], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if p.ID.Int64() != stored || seen[stored] {
				t.Errorf("%s: JSON id is stored value %d, printed stored id %d (seen before: %v)", line, p.ID.Int64(), stored, seen[stored])
			}
			seen[stored] = true
			if plain := once.FromInt64(stored).String(); strings.Contains(m[2], plain) {
				t.Errorf("%s: the stored value's unmasked spelling %s is shown", line, plain)
			}
			var n int
			if err := check.QueryRow(rebind(t, check, `SELECT COUNT(*) FROM `+orms[orm].posts+` WHERE id = ? AND author_id = ? AND title = ?`),
				stored, p.AuthorID.Int64(), p.Title).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("%s: %d rows in posts with id %d, author %d and title %q, want 1", line, n, stored, p.AuthorID.Int64(), p.Title)
			}
			posts = append(posts, p)
		}
		engine, notes := posts[0], posts[1]
		if engine.Title != "Engine" || engine.EditorID == nil || *engine.EditorID != engine.AuthorID {
			t.Errorf("%s: first post %+v, want Engine edited by its author", orm, engine)
		}
		if notes.Title != "Notes" || notes.EditorID != nil || notes.AuthorID != engine.AuthorID {
			t.Errorf("%s: second post %+v, want Notes by the same author, no editor", orm, notes)
		}
	}
	if n := strings.Count(out, `"editor_id"`); n != len(names) {
		t.Errorf("editor_id shown %d times, want %d (once per ORM: never for Notes)", n, len(names))
	}
	if sc.Scan() {
		t.Errorf("unexpected line %q", sc.Text())
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
			if err := check.QueryRow(query).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != want {
				t.Errorf("%s: %d, want %d", query, n, want)
			}
		}
	}
	strategy, err := sqllease.New(check, sqllease.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := strategy.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if row := rows[machineID]; row.Held || row.Token == nil {
		t.Errorf("lease row %d after run: %+v, want taken and released", machineID, row)
	}
}

// rebind turns the ? placeholders of q into $1, $2, ... for PostgreSQL.
func rebind(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	d, err := migrations.DetectDialect(db)
	if err != nil {
		t.Fatal(err)
	}
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
		{"no key", sqlite, "", nil, "ONCE_KEY is not set", nil},
		{"short key", sqlite, "0123456789abcdef", nil, "nonce: ", nonce.ErrConfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", c.databaseURL)
			t.Setenv("ONCE_KEY", c.key)
			t.Setenv("ORM", "")
			var out bytes.Buffer
			err := run(context.Background(), &out, c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Errorf("err = %v, want one containing %q (matching %v)", err, c.want, c.is)
			}
			if out.Len() != 0 {
				t.Errorf("printed %q", out.String())
			}
		})
	}
}
