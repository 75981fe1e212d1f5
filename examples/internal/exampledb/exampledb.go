// Package exampledb is the wiring the examples share: open DATABASE_URL as a
// *sql.DB with its dialect, and hold a machine-ID lease on that same database
// so that once IDs can be generated.
//
// DATABASE_URL forms:
//
//	(empty)                                   SQLite file in os.TempDir() (the example names it)
//	sqlite:/path/to/file.db                   SQLite file (also sqlite:///abs/path, file:...)
//	postgres://user:pass@host:5432/db?...     PostgreSQL (pgx); postgresql:// too
//	mysql://user:pass@tcp(host:3306)/db?...   MySQL/MariaDB, go-sql-driver DSN after the scheme
//	mysql://user:pass@host:3306/db?...        MySQL/MariaDB, URL form
package exampledb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	_ "github.com/once-go/once/internal/sqlitedrv" // registers "sqlite"
	"github.com/once-go/once/migrations"
)

// DB is an open database and what the examples need to know about it.
type DB struct {
	SQL     *sql.DB
	Dialect migrations.Dialect
	// Where describes the database for humans, without the password.
	Where string
}

// Close closes the pool.
func (db *DB) Close() error { return db.SQL.Close() }

// Open opens databaseURL (see the package comment). An empty URL opens
// the SQLite file sqliteFile in os.TempDir().
func Open(ctx context.Context, databaseURL, sqliteFile string) (*DB, error) {
	driver, dsn, d, where, err := parse(databaseURL, sqliteFile)
	if err != nil {
		return nil, err
	}
	sqlDB, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", where, err)
	}
	if d == migrations.SQLite {
		// One writer at a time; the busy timeout makes others wait.
		sqlDB.SetMaxOpenConns(4)
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	return &DB{SQL: sqlDB, Dialect: d, Where: where}, nil
}

func parse(u, sqliteFile string) (driver, dsn string, d migrations.Dialect, where string, err error) {
	scheme, rest, _ := strings.Cut(u, ":")
	switch strings.ToLower(scheme) {
	case "":
		return sqlite(filepath.Join(os.TempDir(), sqliteFile))
	case "sqlite", "sqlite3":
		p := strings.TrimPrefix(rest, "//")
		if p == "" {
			return "", "", 0, "", errors.New("DATABASE_URL: sqlite: needs a file path, e.g. sqlite:/tmp/app.db")
		}
		return sqlite(p)
	case "file":
		p, _, _ := strings.Cut(rest, "?")
		return sqlite(p)
	case "postgres", "postgresql":
		pu, err := url.Parse(u)
		if err != nil {
			return "", "", 0, "", fmt.Errorf("DATABASE_URL: %w", err)
		}
		return "pgx", u, migrations.Postgres, "PostgreSQL " + pu.Host + pu.Path, nil
	case "mysql", "mariadb":
		cfg, err := mysqlConfig(strings.TrimPrefix(rest, "//"))
		if err != nil {
			return "", "", 0, "", fmt.Errorf("DATABASE_URL: %w", err)
		}
		cfg.ParseTime = true
		return "mysql", cfg.FormatDSN(), migrations.MySQL, "MySQL " + cfg.Addr + "/" + cfg.DBName, nil
	}
	return "", "", 0, "", fmt.Errorf("DATABASE_URL: unknown scheme %q (want postgres://, mysql://, sqlite:)", scheme)
}

// mysqlConfig reads a go-sql-driver DSN (user:pass@tcp(host:port)/db) or
// the URL form (user:pass@host:port/db).
func mysqlConfig(s string) (*mysql.Config, error) {
	if strings.Contains(s, "@tcp(") || strings.Contains(s, "@unix(") || strings.HasPrefix(s, "tcp(") {
		return mysql.ParseDSN(s)
	}
	u, err := url.Parse("mysql://" + s)
	if err != nil {
		return nil, err
	}
	dsn := ""
	if u.User != nil {
		dsn = u.User.Username()
		if p, ok := u.User.Password(); ok {
			dsn += ":" + p
		}
		dsn += "@"
	}
	host := u.Host
	if u.Port() == "" {
		host += ":3306"
	}
	dsn += "tcp(" + host + ")" + u.Path
	if u.Path == "" {
		dsn += "/"
	}
	if u.RawQuery != "" {
		dsn += "?" + u.RawQuery
	}
	return mysql.ParseDSN(dsn)
}

func sqlite(path string) (string, string, migrations.Dialect, string, error) {
	return "sqlite", "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)",
		migrations.SQLite, "SQLite file " + path, nil
}
