// Command graphql is a GraphQL API on gqlgen whose users have typed, masked
// once IDs: the scalar UserID (ids.MarshalUserID, ids.UnmarshalUserID with
// the oncegql adapter). A wrong prefix or a non-canonical ID argument is a
// GraphQL error.
//
//	go run .                    # SQLite in os.TempDir(), listening on 127.0.0.1:8080
//	curl -s localhost:8080/graphql -H 'Content-Type: application/json' \
//	     -d '{"query":"mutation { createUser(name: \"Ada\") { id name } }"}'
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

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/once-go/once/examples/graphql/graph"
	"github.com/once-go/once/examples/internal/exampledb"
)

//go:generate go tool gqlgen generate

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "graphql example:", err)
		os.Exit(1)
	}
}

// newHandler returns the GraphQL endpoint, POST /graphql.
func newHandler(st *graph.Store) http.Handler {
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: &graph.Resolver{Store: st}}))
	srv.AddTransport(transport.POST{})
	mux := http.NewServeMux()
	mux.Handle("POST /graphql", srv)
	return mux
}

// run serves until ctx ends, then shuts down and releases the lease.
func run(ctx context.Context, out io.Writer, getenv func(string) string) error {
	return exampledb.Serve(ctx, out, getenv, "once-graphql.db", "(POST /graphql)",
		func(ctx context.Context, db *exampledb.DB) (http.Handler, error) {
			st, err := graph.NewStore(ctx, db.SQL, db.Dialect)
			if err != nil {
				return nil, err
			}
			return newHandler(st), nil
		})
}
