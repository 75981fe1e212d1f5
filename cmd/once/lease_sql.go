package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx"

	"github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

func init() {
	// go-sql-driver/mysql logs some connection failures on its own before
	// returning them; the CLI reports them once, in its own words.
	mysql.SetLogger(log.New(io.Discard, "", 0))
	registerDriver(&leaseDriver{name: "postgres", dsn: "postgres://USER@HOST:5432/DB?sslmode=disable",
		open: openSQL("pgx", migrations.Postgres)})
	registerDriver(&leaseDriver{name: "mysql", dsn: "USER@tcp(HOST:3306)/DB, also mysql://USER@HOST:3306/DB or mysql://USER@tcp(HOST:3306)/DB (MySQL 8+, MariaDB 10.5+)",
		open: openSQL("mysql", migrations.MySQL)})
	registerDriver(&leaseDriver{name: "sqlite", dsn: "PATH (a file, created only by lease migrate; busy timeout 10s added) or file:PATH?... (used as is; mode=rw added but for migrate)",
		open: openSQL(sqlitedrv.DriverName, migrations.SQLite)})
}

// sqliteDSN turns --dsn into the driver's DSN: a plain path becomes a file:
// URI that waits up to 10 s for locks held by other processes; a file: URI
// is used as is. Unless create, the database is opened without creating
// it (mode=rw, unless the URI sets a mode). Missing files and directories
// are reported here, in terms of --dsn: SQLite's own error for them is
// "unable to open database file".
func sqliteDSN(dsn string, create bool) (string, error) {
	uri := strings.HasPrefix(dsn, "file:")
	path := dsn
	if uri {
		path, _, _ = strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	} else {
		dsn = "file:" + dsn + "?_pragma=busy_timeout(10000)"
	}
	if path != "" && !strings.HasPrefix(path, ":") { // not ":memory:"
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("--dsn %s: no such directory %s", quoteValue(path), quoteValue(dir))
		}
		if _, err := os.Stat(path); !create && errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("--dsn %s: no such file (once lease migrate creates the database)", quoteValue(path))
		}
	}
	if !create && !strings.Contains(dsn, "mode=") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "mode=rw"
	}
	return dsn, nil
}

// mysqlDSN accepts a go-sql-driver DSN (USER@tcp(HOST:PORT)/DB?...) as is,
// and the spellings of a DATABASE_URL that the examples accept: mysql:// or
// mariadb:// followed by such a DSN, or by USER[:PASS]@HOST[:PORT]/DB?...
// (port 3306 by default).
func mysqlDSN(dsn string) (string, error) {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok || (scheme != "mysql" && scheme != "mariadb") {
		return dsn, nil
	}
	if strings.Contains(rest, "@tcp(") || strings.Contains(rest, "@unix(") || strings.HasPrefix(rest, "tcp(") || strings.HasPrefix(rest, "unix(") {
		cfg, err := mysql.ParseDSN(rest)
		if err != nil {
			return "", usageError{fmt.Errorf("--dsn: %v", err)}
		}
		return cfg.FormatDSN(), nil
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil || u.Host == "" {
		return "", usageError{fmt.Errorf("--dsn: not %s://USER[:PASS]@HOST[:PORT]/DB or %s://USER[:PASS]@tcp(HOST:PORT)/DB", scheme, scheme)}
	}
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	if u.RawQuery != "" {
		// The query parameters are go-sql-driver's: let its parser read them.
		q, err := mysql.ParseDSN(cfg.FormatDSN() + "?" + u.RawQuery)
		if err != nil {
			return "", usageError{fmt.Errorf("--dsn: %v", err)}
		}
		cfg = q
	}
	return cfg.FormatDSN(), nil
}

// openSQL returns the open function of an SQL driver.
func openSQL(driver string, d migrations.Dialect) func(context.Context, backendConfig) (*backend, error) {
	return func(ctx context.Context, cfg backendConfig) (*backend, error) {
		dsn, err := cfg.dsn, error(nil)
		switch d {
		case migrations.SQLite:
			dsn, err = sqliteDSN(dsn, cfg.create)
		case migrations.MySQL:
			dsn, err = mysqlDSN(dsn)
		case migrations.Postgres:
			if _, perr := pgx.ParseConfig(dsn); perr != nil { // pgx masks the password
				err = usageError{fmt.Errorf("--dsn: %v", perr)}
			}
		}
		if err != nil {
			return nil, err
		}
		table := cfg.table
		if table == "" {
			table = migrations.DefaultTable
		}
		if err := migrations.ValidateTable(table); err != nil {
			return nil, usageError{fmt.Errorf("--table %s: %v", quoteValue(table), err)}
		}
		db, err := sql.Open(driver, dsn)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", d, err)
		}
		s, err := sqllease.New(db, sqllease.Options{Dialect: d, Table: table})
		if err != nil {
			db.Close()
			return nil, err
		}
		return &backend{
			strategy: s,
			check: func(ctx context.Context) error {
				if err := db.PingContext(ctx); err != nil {
					return fmt.Errorf("connecting to %s: %w", d, err)
				}
				return nil
			},
			list:    func(ctx context.Context) ([]leaseRow, error) { return sqlRows(ctx, s) },
			migrate: func(ctx context.Context) error { return migrations.Apply(ctx, db, d, table) },
			close:   db.Close,
		}, nil
	}
}

func sqlRows(ctx context.Context, s *sqllease.Strategy) ([]leaseRow, error) {
	rows, err := s.Rows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]leaseRow, len(rows))
	for i, r := range rows {
		out[i] = leaseRow{id: r.ID, held: r.Held, expiry: r.ExpiresAt, token: r.Token}
	}
	return out, nil
}
