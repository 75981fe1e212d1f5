package exampledb

import (
	"context"
	"fmt"
	"io"
	"os"
)

// LocalPostgres is the database the ORM examples use when DATABASE_URL is
// not set.
const LocalPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Body is the part of an example that shows its library: it runs with db
// open and a machine-ID lease held (once IDs can be made) and writes what
// it shows to out.
type Body func(ctx context.Context, out io.Writer, db *DB) error

// Main is the main function of an ORM example named name: it runs body on
// DATABASE_URL (LocalPostgres when unset) and exits with status 1 on error.
func Main(name string, body Body) {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		url = LocalPostgres
	}
	if err := Run(context.Background(), os.Stdout, url, body); err != nil {
		fmt.Fprintln(os.Stderr, name+" example:", err)
		os.Exit(1)
	}
}

// Run opens url (an empty one is a SQLite file in os.TempDir()), holds a
// machine-ID lease on it (StartLease, warnings to stderr), calls body, then
// releases the lease and closes the database.
func Run(ctx context.Context, out io.Writer, url string, body Body) error {
	db, err := Open(ctx, url, "")
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := StartLease(ctx, db, os.Stderr)
	if err != nil {
		return err
	}
	defer l.Close()
	return body(ctx, out, db)
}
