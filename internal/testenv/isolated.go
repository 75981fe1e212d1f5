package testenv

import (
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// PostgresSchema creates a schema of its own for the test (a Unique name
// from prefix) and opens PostgreSQL with it first on the search_path, so
// that what the test creates without a schema name lands there. It returns
// the database and its DSN; the schema is dropped (CASCADE) when the test
// ends. It skips or fails as [Postgres] does.
func PostgresSchema(t testing.TB, prefix string) (*sql.DB, string) {
	t.Helper()
	admin := Postgres(t)
	schema := Unique(t, prefix)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("testenv: create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("testenv: drop schema %s: %v", schema, err)
		}
	})
	dsn := PostgresDSN()
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		dsn = u.String()
	} else {
		dsn = strings.TrimSpace(dsn) + " search_path=" + schema
	}
	return open(t, "pgx", dsn, "PostgreSQL"), dsn
}

// MySQLDatabase creates a database of its own for the test (a Unique name
// from prefix) and opens MySQL/MariaDB in it. It returns the database and
// its DSN; the database is dropped when the test ends. It skips or fails
// as [MySQL] does.
func MySQLDatabase(t testing.TB, prefix string) (*sql.DB, string) {
	t.Helper()
	return mysqlDatabase(t, MySQL(t), MySQLDSN(), prefix)
}

// MySQL9Database is [MySQLDatabase] on Oracle MySQL ([MySQL9]).
func MySQL9Database(t testing.TB, prefix string) (*sql.DB, string) {
	t.Helper()
	return mysqlDatabase(t, MySQL9(t), MySQL9DSN(), prefix)
}

func mysqlDatabase(t testing.TB, admin *sql.DB, base, prefix string) (*sql.DB, string) {
	t.Helper()
	name := Unique(t, prefix)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("testenv: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + name); err != nil {
			t.Errorf("testenv: drop database %s: %v", name, err)
		}
	})
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("testenv: MySQL DSN: %v", err)
	}
	cfg.DBName = name
	dsn := cfg.FormatDSN()
	return open(t, "mysql", dsn, "MySQL"), dsn
}

// OracleMySQL reports whether db, a MySQL-protocol server, is Oracle
// MySQL rather than MariaDB (its VERSION() names neither otherwise). The
// two differ in what tests meet: RETURNING, system variable names, the
// catalog's spelling of types.
func OracleMySQL(t testing.TB, db *sql.DB) bool {
	t.Helper()
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatalf("testenv: server version: %v", err)
	}
	return !strings.Contains(version, "MariaDB")
}
