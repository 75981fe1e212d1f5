// Command pgx uses once IDs with pgx's native interface: one pgxpool.Pool
// serves the application's queries and, through stdlib.OpenDBFromPool, the
// migration and the lease manager.
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable go run ./examples/pgx
//
// pgx sends an ID through its driver.Valuer (a bigint here) and scans one
// through its sql.Scanner, so IDs are plain query arguments and scan targets.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// UserID is shown as "usr_" + 11 characters, masked; stored as a bigint.
type UserID = once.Typed[userSpec]

// demoKey masks IDs when ONCE_KEY is not set. It is public: masked IDs
// made with it hide nothing.
const demoKey = "once-pgx-example-demo-key-do-not-use-in-production"

func main() {
	// The application's lifetime, which the lease manager shares.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	if err := run(ctx, os.Stdout, url, os.Getenv("ONCE_KEY"), "pgx_example_users"); err != nil {
		fmt.Fprintln(os.Stderr, "pgx example:", err)
		os.Exit(1)
	}
}

// registerIDTypes tells a connection which PostgreSQL array type holds a
// []UserID (pgxpool.Config.AfterConnect runs it on each). pgx needs it for
// WHERE id = ANY($1) in the exec modes that do not ask the server for the
// parameter types (QueryExecModeExec, QueryExecModeSimpleProtocol); the
// elements go through UserID's Valuer.
func registerIDTypes(_ context.Context, c *pgx.Conn) error {
	c.TypeMap().RegisterDefaultPgType([]UserID(nil), "_int8")
	return nil
}

func run(ctx context.Context, out io.Writer, url, key, table string) (err error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return err
	}
	cfg.AfterConnect = registerIDTypes
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	// A *sql.DB view of the same pool for the packages that take one.
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()

	if err := migrations.Apply(ctx, db, 0, migrations.DefaultTable); err != nil {
		return err
	}
	demo := key == ""
	if demo {
		key = demoKey
	}
	// ONCE_KEY's raw bytes. AllowDemoKey: nonce.New refuses the public demo
	// key unless told; this example allows it only when ONCE_KEY is unset.
	ids, err := nonce.New(nonce.Config{BaseKey: []byte(key), AllowDemoKey: demo})
	if err != nil {
		return fmt.Errorf("ONCE_KEY: %w", err)
	}
	strategy, err := sqllease.New(db, sqllease.Options{})
	if err != nil {
		return err
	}
	m, err := lease.Start(ctx, strategy, lease.Options{
		Factories:      []*nonce.Factory{ids},
		AcquireTimeout: 20 * time.Second, // bounds the start-up; ctx bounds the manager's life
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = errors.Join(err, m.Close(cctx))
	}()
	once.DefaultBinding().Set(ids)
	defer once.DefaultBinding().Set(nil)

	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (id bigint PRIMARY KEY, email text NOT NULL)`); err != nil {
		return err
	}
	id, err := once.NewAs[UserID]()
	if err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `INSERT INTO `+table+` (id, email) VALUES ($1, $2)`, id, "ada@example.com"); err != nil {
		return err
	}

	// A client sends the text back: parse it, query with it, scan into it.
	parsed, err := once.ParseAs[UserID](id.String())
	if err != nil {
		return err
	}
	var got UserID
	var email string
	var stored int64
	if err := pool.QueryRow(ctx, `SELECT id, id, email FROM `+table+` WHERE id = $1`, parsed).Scan(&got, &stored, &email); err != nil {
		return err
	}
	// A list of IDs is one array parameter.
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE id = ANY($1)`, []UserID{parsed}).Scan(&n); err != nil {
		return err
	}
	fmt.Fprintf(out, "machine ID %d\n%s %s (stored %d)\n%d of 1 by = ANY($1)\n", m.MachineID(), got, email, stored, n)
	return nil
}
