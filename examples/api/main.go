// Command api is a small JSON API over net/http whose users have typed,
// masked once IDs.
//
//	go run ./examples/api            # SQLite in os.TempDir(), listening on 127.0.0.1:8080
//	curl -si localhost:8080/users -H 'Content-Type: application/json' -d '{"email":"ada@example.com"}'
//	curl -si localhost:8080/users/usr_...
//
// DATABASE_URL selects PostgreSQL or MySQL instead, ADDR the listen address,
// ONCE_STATE_FILE where the lease is recorded (default once-lease.json in the
// working directory). It starts once with oncesql.Start as the README does,
// and its shutdown code is the README's "serve" snippet: SIGINT or SIGTERM
// stops accepting requests, finishes those in flight, then closes the
// generator (new IDs stop, the machine ID is released), then the database.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/once"
	"github.com/once-go/once/oncesql"
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
	// The README's oncesql.Start, with the demo key allowed (AllowDemoKey)
	// only when ONCE_KEY is unset.
	ids, err := oncesql.Start(ctx, db, oncesql.Config{
		Key:          []byte(key),
		AllowDemoKey: demo,
		Check:        []once.Spec{UserID{}},
		Dialect:      store.Dialect,
		StateFile:    getenv("ONCE_STATE_FILE"),
		Lease:        lease.Options{AcquireTimeout: 30 * time.Second},
	})
	if err != nil {
		return err
	}
	// Close stops new IDs and releases the machine ID; deferred after the
	// database's Close, it runs before it.
	defer func() {
		err = errors.Join(err, ids.Close(context.Background()))
		if err == nil {
			fmt.Fprintln(out, "lease released")
		}
	}()

	if err := createTable(ctx, db, store.Dialect, table); err != nil {
		return err
	}
	addr := cmp.Or(getenv("ADDR"), "127.0.0.1:8080")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := newServer(newHandler(db, store.Dialect, table))
	fmt.Fprintf(out, "%s, machine ID %d\nlistening on http://%s\n", store.Where, ids.MachineID(), ln.Addr())

	// readme:begin serve
	// Imports: "context", "errors", "time".
	// srv is the *http.Server, ln its listener.
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err // the listener failed
	case <-ctx.Done(): // SIGINT or SIGTERM
	}
	// Shut down in this order: stop accepting and finish the requests in
	// flight (their IDs still come), then (deferred above) close the
	// generator, which stops new IDs and releases the machine ID, then close
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
