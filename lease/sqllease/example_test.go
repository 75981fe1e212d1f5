package sqllease_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/once-go/once/internal/sqlitedrv" // the module's SQLite driver ("sqlite")
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
)

// exampleDB opens a fresh SQLite database, standing in for the
// application's own PostgreSQL, MySQL or SQLite pool.
func exampleDB() (*sql.DB, func()) {
	dir, err := os.MkdirTemp("", "sqllease-example")
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

// The strategy on its own: migrate, acquire, renew, release.
func Example() {
	db, cleanup := exampleDB()
	defer cleanup()
	ctx := context.Background()

	// Create the lease table (once_leases, 512 rows); harmless when it exists.
	if err := migrations.Apply(ctx, db, migrations.SQLite, migrations.DefaultTable); err != nil {
		panic(err)
	}
	// LowestFirst makes the first ID predictable for this example; by
	// default Acquire starts at a random ID.
	s, err := sqllease.New(db, sqllease.Options{LowestFirst: true})
	if err != nil {
		panic(err)
	}
	l, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		panic(err)
	}
	fmt.Println("machine ID:", l.MachineID, "for", l.TTL)

	l, err = s.Renew(ctx, l, 2*time.Hour)
	fmt.Println("renewed for", l.TTL, err)
	fmt.Println("released:", s.Release(ctx, l))
	// Output:
	// machine ID: 0 for 1h0m0s
	// renewed for 2h0m0s <nil>
	// released: <nil>
}

// The usual wiring: the lease manager holds a machine ID from the
// application's database and keeps the nonce factory generating only
// while it is held.
func Example_manager() {
	db, cleanup := exampleDB()
	defer cleanup()
	ctx := context.Background()

	if err := migrations.Apply(ctx, db, migrations.SQLite, ""); err != nil {
		panic(err)
	}
	s, err := sqllease.New(db, sqllease.Options{}) // dialect detected from the driver
	if err != nil {
		panic(err)
	}
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		panic(err)
	}
	m, err := lease.Start(ctx, s, lease.Options{
		Factories: []lease.Factory{f},
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer m.Close(ctx)

	v, err := f.Counter64()
	id := nonce.Split64(v, f.Epoch()).MachineID
	fmt.Println("nonce carries the leased machine ID:", id == m.MachineID(), err)
	fmt.Println("machine ID in range:", id >= 0 && id <= nonce.MaxMachineID)
	// Output:
	// nonce carries the leased machine ID: true <nil>
	// machine ID in range: true
}
