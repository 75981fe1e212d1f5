// Command api is a small JSON API over net/http whose users have typed,
// masked once IDs.
//
//	go run ./examples/api            # SQLite in os.TempDir(), listening on 127.0.0.1:8080
//	curl -si localhost:8080/users -H 'Content-Type: application/json' -d '{"email":"ada@example.com"}'
//	curl -si localhost:8080/users/usr_...
//
// DATABASE_URL selects PostgreSQL or MySQL instead, ADDR the listen address,
// ONCE_STATE_FILE where the lease is recorded (default once-lease.json in the
// working directory). Its lease and shutdown code are the README's "lease"
// and "serve" snippets: SIGINT or SIGTERM stops accepting requests, finishes
// those in flight, then closes the lease manager (new IDs stop, the machine
// ID is released), then the database.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

const table = "api_users"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends (or the lease is lost for good), then shuts
// down: the server drains, the lease manager closes, the database closes.
func run(ctx context.Context, out io.Writer, getenv func(string) string) (err error) {
	store, err := exampledb.Open(ctx, getenv("DATABASE_URL"), "once-api.db")
	if err != nil {
		return err
	}
	db := store.SQL
	defer func() { err = errors.Join(err, db.Close()) }() // last: after the lease manager's Close

	key, demo := getenv("ONCE_KEY"), false
	if key == "" {
		key, demo = exampledb.DemoKey, true
		fmt.Fprintln(out, exampledb.DemoKeyNote)
	}
	// AllowDemoKey: nonce.New refuses the public demo key unless told; this
	// example allows it only when ONCE_KEY is unset.
	ids, err := nonce.New(nonce.Config{BaseKey: []byte(key), AllowDemoKey: demo})
	if err != nil {
		return fmt.Errorf("ONCE_KEY: %w", err)
	}
	once.DefaultBinding().Set(ids)
	if err := once.Check(UserID{}); err != nil {
		return err
	}
	if err := migrations.Apply(ctx, db, store.Dialect, migrations.DefaultTable); err != nil {
		return fmt.Errorf("lease table: %w", err)
	}
	defer func() { // after the lease manager's Close, deferred below
		if err == nil {
			fmt.Fprintln(out, "lease released")
		}
	}()

	// readme:begin lease
	// Imports: "cmp", "context", "errors", "log", "os", "time",
	// "github.com/once-go/once/lease", "github.com/once-go/once/lease/sqllease",
	// "github.com/once-go/once/nonce".
	strategy, err := sqllease.New(db, sqllease.Options{}) // table once_leases, dialect from the driver
	if err != nil {
		return err
	}
	// ctx bounds the start only (with AcquireTimeout); the manager renews
	// the machine ID until Close and logs through slog.Default (a loss at
	// ERROR). With StateFile a process restarted in the same place takes its
	// own unexpired lease back: no ID leaks per crash.
	m, err := lease.Start(ctx, strategy, lease.Options{
		Factories:      []*nonce.Factory{ids},
		AcquireTimeout: 30 * time.Second,
		StateFile:      cmp.Or(os.Getenv("ONCE_STATE_FILE"), "once-lease.json"),
	})
	if err != nil {
		return err // lease.ErrTimeout: no free machine ID in time; lease.ErrConfig: fix the setup
	}
	// Close stops generation, then releases the machine ID; deferred after
	// the database's Close, it runs before it. run returns its error.
	defer func() { err = errors.Join(err, m.Close(context.Background())) }()
	log.Printf("once: machine ID %d", m.MachineID())
	// readme:end lease

	if err := createTable(ctx, db, store.Dialect, table); err != nil {
		return err
	}
	addr := cmp.Or(getenv("ADDR"), "127.0.0.1:8080")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := newServer(newHandler(db, store.Dialect, table))
	fmt.Fprintf(out, "%s, machine ID %d\nlistening on http://%s\n", store.Where, m.MachineID(), ln.Addr())

	// readme:begin serve
	// Imports: "context", "errors", "time".
	// srv is the *http.Server, ln its listener, m the lease manager.
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err // the listener failed
	case <-ctx.Done(): // SIGINT or SIGTERM
	case <-m.Done(): // the lease is lost for good (a strategy with a fixed ID)
		err = m.Err()
	}
	// Shut down in this order: stop accepting and finish the requests in
	// flight (their IDs still come), then (deferred above) close the lease
	// manager, which stops new IDs and releases the machine ID, then close
	// the database.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(err, srv.Shutdown(sctx))
	// readme:end serve
}

// newServer returns a server for h that bounds every phase of a connection:
// a client that stops sending half way through a request, or never reads
// the answer, is cut off.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
}
