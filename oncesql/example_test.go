package oncesql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
	"github.com/once-go/once/oncesql"
)

// Starting once on the application's database (here a SQLite file; the
// same call on PostgreSQL or MySQL): new IDs come as soon as Start returns,
// and stop at Close.
func Example() {
	dir, err := os.MkdirTemp("", "oncesql-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open(sqlitedrv.DriverName, "file:"+filepath.Join(dir, "app.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		panic(err)
	}
	defer db.Close()

	ctx := context.Background()
	g, err := oncesql.Start(ctx, db, oncesql.Config{
		Key:          []byte("oncesql-example-key-do-not-use-in-production"), // os.Getenv("ONCE_KEY")
		AllowDemoKey: true,                                                   // refused without it
		Check:        []once.Spec{UserID{}},
		StateFile:    filepath.Join(dir, "once-lease.json"),
		Lease:        lease.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
	})
	if err != nil {
		panic(err)
	}
	id, err := once.NewAs[UserID]()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(id.String()), id.String()[:4])

	if err := g.Close(ctx); err != nil {
		panic(err)
	}
	_, err = once.NewAs[UserID]()
	fmt.Println(errors.Is(err, nonce.ErrDisabled))
	// Output:
	// 15 usr_
	// true
}
