package migrations

import (
	"database/sql"
	"reflect"
	"strings"
)

// Dialect names an SQL database family. The zero value is not a dialect;
// [DetectDialect] can find one from a *sql.DB's driver.
type Dialect uint8

// The supported dialects.
const (
	Postgres Dialect = iota + 1 // PostgreSQL 12+ (any driver, e.g. pgx's stdlib, lib/pq)
	MySQL                       // MySQL 8+ and MariaDB 10.5+ (go-sql-driver/mysql)
	SQLite                      // SQLite 3.35+ (needs RETURNING)
)

// String returns "postgres", "mysql", "sqlite" or "unknown".
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	case SQLite:
		return "sqlite"
	}
	return "unknown"
}

// Valid reports whether d is one of Postgres, MySQL and SQLite.
func (d Dialect) Valid() bool { return d >= Postgres && d <= SQLite }

// ParseDialect parses "postgres", "mysql" or "sqlite" (case-insensitive).
// The aliases "postgresql", "pgx", "mariadb" and "sqlite3" are accepted too.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "postgres", "postgresql", "pgx":
		return Postgres, nil
	case "mysql", "mariadb":
		return MySQL, nil
	case "sqlite", "sqlite3":
		return SQLite, nil
	}
	return 0, configError("unknown dialect " + quote(s) + " (want postgres, mysql or sqlite)")
}

// DetectDialect names the dialect of db from the Go package of its driver:
// pgx and lib/pq are Postgres, go-sql-driver/mysql is MySQL, modernc.org/sqlite,
// glebarez/go-sqlite and mattn/go-sqlite3 are SQLite. Other drivers (and wrappers such as
// tracing drivers) are not recognised: pass the dialect explicitly.
func DetectDialect(db *sql.DB) (Dialect, error) {
	if db == nil {
		return 0, configError("nil *sql.DB")
	}
	t := reflect.TypeOf(db.Driver())
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := ""
	if t != nil {
		pkg = t.PkgPath()
	}
	switch {
	case strings.HasPrefix(pkg, "github.com/jackc/pgx"), pkg == "github.com/lib/pq":
		return Postgres, nil
	case pkg == "github.com/go-sql-driver/mysql":
		return MySQL, nil
	case pkg == "modernc.org/sqlite", pkg == "github.com/glebarez/go-sqlite", pkg == "github.com/mattn/go-sqlite3",
		strings.HasPrefix(pkg, "github.com/ncruces/go-sqlite3"):
		return SQLite, nil
	}
	return 0, configError("cannot tell the dialect of driver package " + quote(pkg) + "; set it explicitly")
}

// dialectFor returns d, or the dialect of db's driver when d is zero. A d
// that differs from the dialect of a recognised driver is an error; with a
// driver DetectDialect does not know, d is trusted.
func dialectFor(db *sql.DB, d Dialect) (Dialect, error) {
	found, err := DetectDialect(db)
	if d == 0 {
		if err != nil {
			return 0, configError("no dialect given and " + strings.TrimPrefix(err.Error(), "migrations: "))
		}
		return found, nil
	}
	if err == nil && d.Valid() && found != d {
		return 0, configError("dialect " + d.String() + " does not match db's " + found.String() + " driver; pass " + found.String() + " or 0 to detect it")
	}
	return d, nil
}
