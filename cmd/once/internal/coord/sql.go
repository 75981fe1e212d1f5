package coord

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx"

	"github.com/once-go/once/cmd/once/internal/msg"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

func init() {
	// go-sql-driver/mysql logs some connection failures on its own before
	// returning them; the CLI reports them once, in its own words.
	mysql.SetLogger(log.New(io.Discard, "", 0))
	Register(&Driver{Name: "postgres", LeaseDuration: driver.DefaultDBLeaseDuration, DSN: "postgres://USER@HOST:5432/DB?sslmode=disable",
		Open: openSQL("pgx", migrations.Postgres)})
	Register(&Driver{Name: "mysql", LeaseDuration: driver.DefaultDBLeaseDuration, DSN: "USER@tcp(HOST:3306)/DB, also mysql://USER@HOST:3306/DB or mysql://USER@tcp(HOST:3306)/DB (MySQL 8+, MariaDB 10.5+)",
		Open: openSQL("mysql", migrations.MySQL)})
	Register(&Driver{Name: "sqlite", LeaseDuration: driver.DefaultDBLeaseDuration, DSN: "PATH (a file, created only by lease migrate; busy timeout 10s added) or file:PATH?... (used as is; mode=rw added but for migrate)",
		Open: openSQL(SQLiteDriver, migrations.SQLite)})
}

// openSQL returns the open function of an SQL driver.
func openSQL(driver string, d migrations.Dialect) func(context.Context, Config) (*Backend, error) {
	return func(ctx context.Context, cfg Config) (*Backend, error) {
		dsn, err := cfg.DSN, error(nil)
		switch d {
		case migrations.SQLite:
			dsn, err = SQLiteDSN(dsn, cfg.Create)
		case migrations.MySQL:
			dsn, err = MySQLDSN(dsn)
		case migrations.Postgres:
			if _, perr := pgx.ParseConfig(dsn); perr != nil { // pgx masks the password
				err = UsageError{Err: fmt.Errorf("--dsn: %v", perr)}
			}
		}
		if err != nil {
			return nil, err
		}
		table := cfg.Table
		if table == "" {
			table = migrations.DefaultTable
		}
		if err := migrations.ValidateTable(table); err != nil {
			return nil, UsageError{Err: fmt.Errorf("--table %s: %v", msg.Quote(table), err)}
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
		return &Backend{
			Strategy: s,
			Check: func(ctx context.Context) error {
				if err := db.PingContext(ctx); err != nil {
					return fmt.Errorf("connecting to %s: %w", d, err)
				}
				return nil
			},
			Migrate: func(ctx context.Context) error { return migrations.Apply(ctx, db, d, table) },
			Close:   db.Close,
		}, nil
	}
}
