package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

func init() {
	// go-sql-driver/mysql logs some connection failures on its own before
	// returning them; the CLI reports them once, in its own words.
	mysql.SetLogger(log.New(io.Discard, "", 0))
	registerDriver(&leaseDriver{name: "postgres", leaseDuration: driver.DefaultDBLeaseDuration, dsn: "postgres://USER@HOST:5432/DB?sslmode=disable",
		open: openSQL("pgx", migrations.Postgres)})
	registerDriver(&leaseDriver{name: "mysql", leaseDuration: driver.DefaultDBLeaseDuration, dsn: "USER@tcp(HOST:3306)/DB, also mysql://USER@HOST:3306/DB or mysql://USER@tcp(HOST:3306)/DB (MySQL 8+, MariaDB 10.5+)",
		open: openSQL("mysql", migrations.MySQL)})
	registerDriver(&leaseDriver{name: "sqlite", leaseDuration: driver.DefaultDBLeaseDuration, dsn: "PATH (a file, created only by lease migrate; busy timeout 10s added) or file:PATH?... (used as is; mode=rw added but for migrate)",
		open: openSQL(sqliteDriver, migrations.SQLite)})
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
			migrate: func(ctx context.Context) error { return migrations.Apply(ctx, db, d, table) },
			close:   db.Close,
		}, nil
	}
}
