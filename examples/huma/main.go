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
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"

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
func run(ctx context.Context, out io.Writer, getenv func(string) string) error {
	return exampledb.Serve(ctx, out, getenv, "once-huma.db", "(OpenAPI document: /openapi.json)",
		func(ctx context.Context, db *exampledb.DB) (http.Handler, error) {
			st, err := newStore(ctx, db.SQL, db.Dialect)
			if err != nil {
				return nil, err
			}
			return newAPI(st)
		})
}
