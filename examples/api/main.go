// Command api is a small JSON API over net/http whose users have typed,
// masked once IDs.
//
//	go run ./examples/api            # SQLite in os.TempDir(), listening on 127.0.0.1:8080
//	curl -si localhost:8080/users -H 'Content-Type: application/json' -d '{"email":"ada@example.com"}'
//	curl -si localhost:8080/users/usr_...
//
// DATABASE_URL selects PostgreSQL or MySQL instead, ADDR the listen address.
// SIGINT or SIGTERM shuts the server down gracefully and releases the lease.
package main

import (
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

// run serves until ctx ends, then shuts down and releases the lease.
func run(ctx context.Context, out io.Writer, getenv func(string) string) (err error) {
	db, err := exampledb.Open(ctx, getenv("DATABASE_URL"), "once-api.db")
	if err != nil {
		return err
	}
	defer db.Close()
	// The lease outlives ctx: it is released after the server has
	// finished the requests in flight, not when the signal arrives.
	l, err := exampledb.StartLease(context.WithoutCancel(ctx), db, os.Stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
		fmt.Fprintln(out, "lease released")
	}()
	if l.DemoKey {
		fmt.Fprintln(out, exampledb.DemoKeyNote)
	}
	if err := createTable(ctx, db.SQL, db.Dialect, table); err != nil {
		return err
	}

	addr := getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := newServer(newHandler(db.SQL, db.Dialect, table))
	fmt.Fprintf(out, "%s, machine ID %d\nlistening on http://%s\n", db.Where, l.Manager.MachineID(), ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
	case <-l.Manager.Done(): // the lease is gone for good
		err = fmt.Errorf("lease: %w", l.Manager.Err())
	case err = <-served:
		return err
	}
	fmt.Fprintln(out, "shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
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
