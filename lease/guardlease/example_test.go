package guardlease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/once-go/once/internal/sqlitedrv" // the module's SQLite driver ("sqlite")
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
)

// Two pods of a StatefulSet that were given the same ordinal: the first
// holds machine ID 7 as a lease in the application's database and
// generates; the second is refused.
func Example() {
	// A fresh SQLite database stands in for the application's own.
	dir, err := os.MkdirTemp("", "guardlease-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	if err := migrations.Apply(ctx, db, migrations.SQLite, migrations.DefaultTable); err != nil {
		panic(err)
	}
	os.Setenv("POD_NAME", "web-7") // the Downward API sets it in a real pod
	defer os.Unsetenv("POD_NAME")

	pod := func(acquireTimeout time.Duration) (*lease.Manager, *nonce.Factory, error) {
		coord, err := sqllease.New(db, sqllease.Options{})
		if err != nil {
			return nil, nil, err
		}
		s, err := guardlease.New(envlease.New("POD_NAME", 0), coord, "SQLite table once_leases")
		if err != nil {
			return nil, nil, err
		}
		f, err := nonce.New(nonce.Config{})
		if err != nil {
			return nil, nil, err
		}
		m, err := lease.Start(ctx, s, lease.Options{
			Factories:      []lease.Factory{f},
			LeaseDuration:  time.Minute, // the guard's lease: a crashed pod's successor waits this long at most
			RenewInterval:  20 * time.Second,
			AcquireTimeout: acquireTimeout, // above LeaseDuration plus the release hold in production
			Logger:         slog.New(slog.DiscardHandler),
		})
		return m, f, err
	}

	first, f, err := pod(2 * time.Minute)
	if err != nil {
		panic(err)
	}
	defer first.Close(ctx)
	v, err := f.Sortable64()
	fmt.Println("first pod: machine ID", first.MachineID(), "generates:", err == nil,
		"with", nonce.Split64(v, f.Epoch()).MachineID)

	// The second pod gives up after a second here, rather than waiting for
	// the first pod's guard to lapse.
	_, _, err = pod(time.Second)
	fmt.Println("second pod refused:", errors.Is(err, lease.ErrConflict))
	// Output:
	// first pod: machine ID 7 generates: true with 7
	// second pod refused: true
}
