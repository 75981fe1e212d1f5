// Command huma is a JSON API on huma whose users have typed, masked once
// IDs, in paths and in bodies. Its OpenAPI document, served at
// /openapi.json, gives every ID the exact pattern of its type, and huma
// rejects a malformed ID (422) before a handler runs.
//
//	go run .                    # SQLite in os.TempDir(), listening on 127.0.0.1:8080
//	curl -s localhost:8080/openapi.json
//	curl -si localhost:8080/users -H 'Content-Type: application/json' -d '{"name":"Ada"}'
//	curl -si localhost:8080/users/usr_...
//
// DATABASE_URL selects PostgreSQL or MySQL instead (as in the quickstart),
// ADDR the listen address (127.0.0.1:0 picks a free port), ONCE_KEY the
// masking key. SIGINT or SIGTERM shuts the server down and releases the
// lease.
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "huma example:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends, then shuts down and releases the lease.
func run(ctx context.Context, out io.Writer, getenv func(string) string) (err error) {
	db, err := exampledb.Open(ctx, getenv("DATABASE_URL"), "once-huma.db")
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := exampledb.StartLease(context.WithoutCancel(ctx), db, os.Stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if l.DemoKey {
		fmt.Fprintln(out, exampledb.DemoKeyNote)
	}
	st, err := newStore(ctx, db.SQL, db.Dialect)
	if err != nil {
		return err
	}
	h, err := newAPI(st)
	if err != nil {
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
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 60 * time.Second}
	fmt.Fprintf(out, "%s, machine ID %d\nlistening on http://%s (OpenAPI document: /openapi.json)\n",
		db.Where, l.Manager.MachineID(), ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
	case <-l.Manager.Done():
		err = fmt.Errorf("lease: %w", l.Manager.Err())
	case err = <-served:
		return err
	}
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
