package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

var dialects = []migrations.Dialect{migrations.Postgres, migrations.MySQL, migrations.SQLite}

// openDB returns a test database of dialect d with a sane pool size
// (PostgreSQL allows 100 connections by default).
func openDB(t *testing.T, d migrations.Dialect) *sql.DB {
	t.Helper()
	var db *sql.DB
	switch d {
	case migrations.Postgres:
		db = testenv.Postgres(t)
	case migrations.MySQL:
		db = testenv.MySQL(t)
	default:
		db = testenv.SQLite(t)
	}
	db.SetMaxOpenConns(20)
	return db
}

// newTable creates a fresh lease table in db and drops it when t ends.
func newTable(t *testing.T, db *sql.DB, d migrations.Dialect) string {
	t.Helper()
	table := testenv.Unique(t, "lease")
	if err := migrations.Apply(ctxT(t), db, d, table); err != nil {
		t.Fatalf("migrations.Apply: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := migrations.Down(ctx, db, d, table); err != nil {
			t.Errorf("migrations.Down: %v", err)
		}
	})
	return table
}

func newStrategy(t *testing.T, db *sql.DB, opts sqllease.Options) *sqllease.Strategy {
	t.Helper()
	s, err := sqllease.New(db, opts)
	if err != nil {
		t.Fatalf("sqllease.New: %v", err)
	}
	return s
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// forEach runs fn as a parallel subtest per dialect.
func forEach(t *testing.T, fn func(t *testing.T, d migrations.Dialect, db *sql.DB)) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			fn(t, d, openDB(t, d))
		})
	}
}

// acquire repeats Acquire while it fails with ErrConflict (and, on
// SQLite, while a busy database makes it ErrRetry).
func acquire(ctx context.Context, s driver.Strategy, d time.Duration) (driver.Lease, error) {
	for {
		l, err := s.Acquire(ctx, d)
		if err == nil || !(errors.Is(err, driver.ErrConflict) || errors.Is(err, driver.ErrRetry)) || ctx.Err() != nil {
			return l, err
		}
		time.Sleep(time.Millisecond + rand.N(4*time.Millisecond))
	}
}

// unreachable returns a *sql.DB of dialect d that cannot reach its server:
// a dead port for PostgreSQL and MySQL, a closed pool for SQLite (which
// has no server).
func unreachable(t *testing.T, d migrations.Dialect) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	switch d {
	case migrations.Postgres:
		db, err = sql.Open("pgx", "postgres://postgres@"+testenv.DeadAddr(t)+"/test?sslmode=disable&connect_timeout=2")
	case migrations.MySQL:
		db, err = sql.Open("mysql", "root@tcp("+testenv.DeadAddr(t)+")/test?timeout=2s")
	default:
		db = testenv.SQLite(t)
		err = db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
