package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

// The test databases, read from the same variables with the same defaults
// as the root module's internal/testenv.
const (
	defaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultMySQLDSN    = "root@tcp(127.0.0.1:3306)/test?parseTime=true"
	defaultMySQL9DSN   = "root@tcp(127.0.0.1:3307)/test?parseTime=true"
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// testDB is one database under test: the DATABASE_URL the program takes,
// ent's dialect name and a pool for checks, on a schema or database of the
// test's own that is dropped at the end.
type testDB struct {
	name, url, dialect string
	sql                *sql.DB
}

// eachDB runs f as a subtest on SQLite, PostgreSQL, MariaDB and Oracle
// MySQL (which has no RETURNING). An
// unreachable server skips its subtest, or fails it with ONCE_TEST_REQUIRE=1.
func eachDB(t *testing.T, f func(t *testing.T, db testDB)) {
	for _, d := range []struct {
		name string
		open func(t *testing.T) testDB
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}, {"mariadb", openMariaDB}, {"mysql", openMySQL9}} {
		t.Run(d.name, func(t *testing.T) { f(t, d.open(t)) })
	}
}

func openSQLite(t *testing.T) testDB {
	u := "sqlite:" + filepath.Join(t.TempDir(), "ent.db")
	return opened(t, testDB{name: "sqlite", url: u})
}

// openPostgres creates a schema and returns a URL whose search_path is it.
func openPostgres(t *testing.T) testDB {
	dsn := env("ONCE_TEST_POSTGRES_DSN", defaultPostgresDSN)
	admin := reach(t, "pgx", dsn, "PostgreSQL")
	name := unique("ent")
	_, err := admin.Exec("CREATE SCHEMA " + name)
	require.NoError(t, err, "CREATE SCHEMA %s", name)
	t.Cleanup(func() { admin.Exec("DROP SCHEMA " + name + " CASCADE") })
	u, err := url.Parse(dsn)
	require.NoError(t, err, "ONCE_TEST_POSTGRES_DSN")
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return opened(t, testDB{name: "postgres", url: u.String()})
}

// openMariaDB creates a database and returns a mysql:// URL for it.
func openMariaDB(t *testing.T) testDB {
	return openMySQL(t, "mariadb", env("ONCE_TEST_MYSQL_DSN", defaultMySQLDSN))
}

// openMySQL9 is openMariaDB on Oracle MySQL (.ci/mysql.sh starts it).
func openMySQL9(t *testing.T) testDB {
	dsn := env("ONCE_TEST_MYSQL9_DSN", defaultMySQL9DSN)
	return openMySQL(t, "mysql", dsn)
}

func openMySQL(t *testing.T, name, dsn string) testDB {
	admin := reach(t, "mysql", dsn, name)
	db := unique("ent")
	_, err := admin.Exec("CREATE DATABASE " + db)
	require.NoError(t, err, "%s: CREATE DATABASE %s", name, db)
	t.Cleanup(func() { admin.Exec("DROP DATABASE " + db) })
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err, "%s DSN", name)
	cfg.DBName = db
	return opened(t, testDB{name: name, url: "mysql://" + cfg.FormatDSN()})
}

// opened fills in the dialect and a pool, as the program opens the URL.
func opened(t *testing.T, db testDB) testDB {
	pool, dialect, err := openDB(db.url)
	require.NoError(t, err, "%s: openDB", db.name)
	t.Cleanup(func() { pool.Close() })
	db.sql, db.dialect = pool, dialect
	return db
}

// reach opens an admin pool on dsn, skipping (or with ONCE_TEST_REQUIRE=1
// failing) when the server does not answer.
func reach(t *testing.T, driver, dsn, what string) *sql.DB {
	db, err := sql.Open(driver, dsn)
	if err == nil {
		err = db.Ping()
	}
	if err != nil {
		reason := what + " unreachable: " + strings.SplitN(err.Error(), "\n", 2)[0]
		if os.Getenv("ONCE_TEST_REQUIRE") == "1" {
			require.NoError(t, err, "ONCE_TEST_REQUIRE=1 but %s unreachable", what)
		}
		t.Skip(reason)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// unique returns a lowercase name no other test run uses.
func unique(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}
