package exampledb

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/oncesql"
)

// DemoKey is the masking key the examples fall back to when ONCE_KEY is not
// set. It is public: masked IDs made with it hide nothing.
const DemoKey = "once-examples-demo-key-do-not-use-in-production"

// Lease is once started on the application's database (oncesql.Start),
// with the nonce factory it keeps generating bound as the default.
type Lease struct {
	*oncesql.Generator
	// DemoKey is true when ONCE_KEY was not set and DemoKey is in use.
	DemoKey bool
}

// StartLease starts once on db with oncesql.Start: the lease table if
// needed, a machine ID from it on the same pool, and the nonce factory
// keyed with ONCE_KEY (its raw bytes, at least 32, as the Elixir library
// reads the same variable; DemoKey when unset) as the default generator of
// once IDs. The lease is renewed until Close (ctx bounds the start only).
// Warnings of the lease manager go to logTo. No state file: the examples
// are run by hand and by tests, several at a time.
func StartLease(ctx context.Context, db *DB, logTo io.Writer) (*Lease, error) {
	key, demo := os.Getenv("ONCE_KEY"), false
	if key == "" {
		key, demo = DemoKey, true
	}
	// AllowDemoKey: the public demo key is refused unless told; the
	// examples allow it only when ONCE_KEY is unset.
	g, err := oncesql.Start(ctx, db.SQL, oncesql.Config{
		Key:          []byte(key),
		AllowDemoKey: demo,
		Dialect:      db.Dialect,
		NoStateFile:  true,
		Lease: lease.Options{
			AcquireTimeout: 20 * time.Second,
			Logger:         slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn})),
		},
	})
	if err != nil {
		return nil, err
	}
	return &Lease{Generator: g, DemoKey: demo}, nil
}

// Close stops generation and releases the lease (bounded to 5 s).
func (l *Lease) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return l.Generator.Close(ctx)
}

// DemoKeyNote is the warning the examples print when DemoKey is in use.
const DemoKeyNote = `NOTE: ONCE_KEY is not set, so IDs are masked with the public demo key: they
      hide nothing. In production set ONCE_KEY to 32+ random bytes, used as
      is (not decoded), e.g. export ONCE_KEY=$(openssl rand -hex 32)`
