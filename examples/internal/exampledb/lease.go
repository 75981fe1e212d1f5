package exampledb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// DemoKey is the masking key the examples fall back to when ONCE_KEY is not
// set. It is public: masked IDs made with it hide nothing.
const DemoKey = "once-examples-demo-key-do-not-use-in-production"

// Lease is a machine-ID lease held on the application's database, with the
// nonce factory it enables, bound as once's default generator.
type Lease struct {
	Manager *lease.Manager
	Factory *nonce.Factory
	// DemoKey is true when ONCE_KEY was not set and DemoKey is in use.
	DemoKey bool
}

// StartLease creates the lease table if needed (migrations.Apply), takes a
// machine ID from it with the SQL strategy on the same pool, and makes the
// nonce factory keyed with ONCE_KEY (its raw bytes, at least 32, as the
// Elixir library reads the same variable; DemoKey when unset)
// the default generator of once IDs. The manager renews the lease until
// Close (ctx bounds the start only). Warnings of the lease manager go to logTo.
func StartLease(ctx context.Context, db *DB, logTo io.Writer) (*Lease, error) {
	key, demo := os.Getenv("ONCE_KEY"), false
	if key == "" {
		key, demo = DemoKey, true
	}
	if err := migrations.Apply(ctx, db.SQL, db.Dialect, migrations.DefaultTable); err != nil {
		return nil, fmt.Errorf("lease table: %w", err)
	}
	s, err := sqllease.New(db.SQL, sqllease.Options{Dialect: db.Dialect})
	if err != nil {
		return nil, err
	}
	// AllowDemoKey: nonce.New refuses the public demo key unless told; the
	// examples allow it only when ONCE_KEY is unset.
	f, err := nonce.New(nonce.Config{BaseKey: []byte(key), AllowDemoKey: demo})
	if err != nil {
		return nil, fmt.Errorf("ONCE_KEY: %w", err)
	}
	m, err := lease.Start(ctx, s, lease.Options{
		Factories:      []*nonce.Factory{f},
		AcquireTimeout: 20 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return nil, err
	}
	once.DefaultBinding().Set(f)
	return &Lease{Manager: m, Factory: f, DemoKey: demo}, nil
}

// Close stops generation and releases the lease (bounded to 5 s).
func (l *Lease) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return l.Manager.Close(ctx)
}

// DemoKeyNote is the warning the examples print when DemoKey is in use.
const DemoKeyNote = `NOTE: ONCE_KEY is not set, so IDs are masked with the public demo key: they
      hide nothing. In production set ONCE_KEY to 32+ random bytes, used as
      is (not decoded), e.g. export ONCE_KEY=$(openssl rand -hex 32)`
