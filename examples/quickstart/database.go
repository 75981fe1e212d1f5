package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/glebarez/go-sqlite" // database/sql driver "sqlite" (pure Go)
	"github.com/glebarez/sqlite"
	gomysql "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// database is where DATABASE_URL points: the database/sql driver and DSN,
// and a description for humans without the password.
type database struct {
	driver, dsn, where string
}

// parseDatabaseURL reads DATABASE_URL:
//
//	(empty)                                   SQLite file once-quickstart.db in os.TempDir()
//	sqlite:/path/to/file.db                   SQLite file
//	postgres://user:pass@host:5432/db?...     PostgreSQL (pgx); postgresql:// too
//	host=... user=... dbname=...              PostgreSQL, pgx's key=value DSN
//	mysql://user:pass@tcp(host:3306)/db?...   MySQL/MariaDB, go-sql-driver DSN after the scheme
//	mysql://user:pass@host:3306/db?...        MySQL/MariaDB, URL form
//	user:pass@tcp(host:3306)/db?...           MySQL/MariaDB, plain go-sql-driver DSN
func parseDatabaseURL(s string) (database, error) {
	scheme, rest, hasScheme := strings.Cut(s, "://")
	if !hasScheme {
		scheme, rest, _ = strings.Cut(s, ":")
	}
	switch {
	case s == "":
		return sqliteFile(filepath.Join(os.TempDir(), "once-quickstart.db"))
	case strings.Contains(s, "@tcp(") || strings.Contains(s, "@unix(") || strings.HasPrefix(s, "tcp("):
		return mysqlDSN(strings.TrimPrefix(strings.TrimPrefix(s, "mariadb://"), "mysql://"))
	case strings.Contains(s, "=") && !strings.Contains(s, "://"):
		return database{"pgx", s, "PostgreSQL (key=value DSN)"}, nil
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3", "file":
		path, _, _ := strings.Cut(strings.TrimPrefix(rest, "//"), "?")
		if path == "" {
			return database{}, errors.New("DATABASE_URL: sqlite: needs a file path, e.g. sqlite:/tmp/app.db")
		}
		return sqliteFile(path)
	case "postgres", "postgresql":
		u, err := url.Parse(s)
		if err != nil {
			return database{}, fmt.Errorf("DATABASE_URL: %w", err)
		}
		return database{"pgx", s, "PostgreSQL " + u.Host + u.Path}, nil
	case "mysql", "mariadb":
		u, err := url.Parse("mysql://" + rest)
		if err != nil {
			return database{}, fmt.Errorf("DATABASE_URL: %w", err)
		}
		cfg := gomysql.NewConfig()
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
		if u.Port() == "" {
			cfg.Addr += ":3306"
		}
		return mysqlDSN(cfg.FormatDSN() + queryPart(u.RawQuery))
	}
	return database{}, fmt.Errorf("DATABASE_URL: unknown form %q (want postgres://, mysql://, sqlite: or a driver DSN)", cut(s))
}

func queryPart(q string) string {
	if q == "" {
		return ""
	}
	return "?" + q
}

// mysqlDSN checks a go-sql-driver DSN and asks for DATETIME columns as
// time.Time (parseTime), which the lease table needs.
func mysqlDSN(dsn string) (database, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return database{}, fmt.Errorf("DATABASE_URL: %w", err)
	}
	cfg.ParseTime = true
	return database{"mysql", cfg.FormatDSN(), "MySQL " + cfg.Addr + "/" + cfg.DBName}, nil
}

// sqliteFile waits up to 10 s for a locked file and lets readers run
// beside the writer (WAL).
func sqliteFile(path string) (database, error) {
	return database{"sqlite", "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)",
		"SQLite file " + path}, nil
}

// gormDialector returns GORM's dialector for the driver, on an open pool.
func gormDialector(driver string, pool gorm.ConnPool) gorm.Dialector {
	switch driver {
	case "pgx":
		return postgres.New(postgres.Config{Conn: pool})
	case "mysql":
		return mysql.New(mysql.Config{Conn: pool})
	}
	return &sqlite.Dialector{Conn: pool}
}

// cut shortens s for an error message.
func cut(s string) string {
	if len(s) > 24 {
		return s[:24] + "..."
	}
	return s
}
