// Command openapi serves one OpenAPI document, openapi.yaml, through two
// servers generated from it: oapi-codegen's under /oapi and ogen's under
// /ogen. The document's UserID schema has the exact pattern of the Go type
// ids.UserID and names that type (x-go-type, x-ogen-type), so the
// generated code parses every ID with once's strict parser: a malformed ID
// is answered 400 before a handler runs.
//
//	go run .                    # SQLite in os.TempDir(), listening on 127.0.0.1:8080
//	curl -s localhost:8080/openapi.yaml
//	curl -si localhost:8080/oapi/users -H 'Content-Type: application/json' -d '{"name":"Ada"}'
//	curl -si localhost:8080/ogen/users/usr_...
//
// DATABASE_URL selects PostgreSQL or MySQL instead (as in the quickstart),
// ADDR the listen address (127.0.0.1:0 picks a free port), ONCE_KEY the
// masking key. SIGINT or SIGTERM shuts the server down and releases the
// lease.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/examples/openapi/oapi"
	"github.com/once-go/once/examples/openapi/ogenapi"
)

//go:embed openapi.yaml
var spec []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "openapi example:", err)
		os.Exit(1)
	}
}

// newHandler returns both generated servers over st, and the document.
func newHandler(st *store) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(spec)
	})
	oapi.HandlerWithOptions(oapi.NewStrictHandler(oapiServer{st}, nil),
		oapi.StdHTTPServerOptions{BaseURL: "/oapi", BaseRouter: mux})
	og, err := ogenapi.NewServer(ogenServer{st}, ogenapi.WithPathPrefix("/ogen"))
	if err != nil {
		return nil, err
	}
	mux.Handle("/ogen/", og)
	return mux, nil
}

// run serves until ctx ends, then shuts down and releases the lease.
func run(ctx context.Context, out io.Writer, getenv func(string) string) error {
	return exampledb.Serve(ctx, out, getenv, "once-openapi.db", "(oapi-codegen: /oapi, ogen: /ogen, document: /openapi.yaml)",
		func(ctx context.Context, db *exampledb.DB) (http.Handler, error) {
			st, err := newStore(ctx, db.SQL, db.Dialect)
			if err != nil {
				return nil, err
			}
			return newHandler(st)
		})
}
