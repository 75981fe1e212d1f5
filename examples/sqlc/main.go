// Command sqlc stores users and posts through code that sqlc generated, with
// typed once IDs in every id and *_id column (see sqlc.yaml and README.md).
//
//	go run ./examples/sqlc                                                      # SQLite file in the temp directory
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable go run ./examples/sqlc
//
// It creates the lease table and the example's tables, holds a machine-ID
// lease on the same database, creates two users and two posts (one with an
// editor, one without) through the Create wrappers, reads them back by ID and
// by author, prints each as JSON, and shows the error of an insert whose ID
// was never set.
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/once-go/once/examples/sqlc/ids"
	_ "github.com/once-go/once/internal/sqlitedrv" // database/sql driver "sqlite"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var (
	//go:embed sql/postgres/schema.sql
	postgresSchema string
	//go:embed sql/sqlite/schema.sql
	sqliteSchema string
)

// demoKey masks IDs when ONCE_KEY is not set. It is public: masked IDs made
// with it hide nothing.
const demoKey = "once-sqlc-example-demo-key-do-not-use-in-production"

func main() {
	// ctx lives as long as the process: the lease manager runs until it ends.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout, os.Getenv("DATABASE_URL"), os.Getenv("ONCE_KEY"))
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlc example:", err)
		os.Exit(1)
	}
}

// run is the program: url is DATABASE_URL (postgres://..., sqlite:PATH, or
// empty for a SQLite file in the temp directory) and key is ONCE_KEY, used as
// raw bytes (demoKey when empty).
func run(ctx context.Context, out io.Writer, url, key string) (err error) {
	db, dialect, where, err := openDB(url)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }() // last: after the lease manager's Close
	fmt.Fprintf(out, "database  %s\n", where)
	// The lease table once_leases.
	if err := migrations.Apply(ctx, db, dialect, ""); err != nil {
		return err
	}

	demo := key == ""
	if demo {
		key = demoKey
		fmt.Fprintln(out, "NOTE      ONCE_KEY is not set: IDs are masked with the public demo key.")
	}
	// AllowDemoKey: nonce.New refuses the public demo key unless told; this
	// example allows it only when ONCE_KEY is unset.
	factory, err := nonce.New(nonce.Config{BaseKey: []byte(key), AllowDemoKey: demo})
	if err != nil {
		return fmt.Errorf("ONCE_KEY: %w", err)
	}
	once.DefaultBinding().Set(factory)
	if err := once.Check(ids.UserID{}, ids.PostID{}); err != nil {
		return err
	}
	strategy, err := sqllease.New(db, sqllease.Options{Dialect: dialect})
	if err != nil {
		return err
	}
	// ctx must live as long as the app: when it ends, new IDs fail.
	m, err := lease.Start(ctx, strategy, lease.Options{
		Factories:      []*nonce.Factory{factory},
		AcquireTimeout: 30 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.Close(context.Background())) }()
	fmt.Fprintf(out, "lease     machine ID %d\n", m.MachineID())

	if dialect == migrations.Postgres {
		return demoPostgres(ctx, out, db)
	}
	return demoSQLite(ctx, out, db)
}

// openDB opens url with database/sql, the only package the generated code
// needs: PostgreSQL through pgx's driver, SQLite with foreign keys enforced
// (SQLite leaves them off unless asked). where describes the database.
func openDB(url string) (db *sql.DB, dialect migrations.Dialect, where string, err error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err = sql.Open("pgx", url)
		return db, migrations.Postgres, "PostgreSQL", err
	case url == "", strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			path = filepath.Join(os.TempDir(), "once-sqlc.db")
		}
		db, err = sql.Open("sqlite", "file:"+path+
			"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		return db, migrations.SQLite, "SQLite file " + path, err
	}
	return nil, 0, "", errors.New("DATABASE_URL: want postgres://..., sqlite:PATH or nothing")
}

// printJSON writes label and v as JSON on one line.
func printJSON(out io.Writer, label string, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%-9s %s\n", label, js)
	return err
}
