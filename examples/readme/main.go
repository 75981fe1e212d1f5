// Command readme is the program the documentation's Go snippets come from
// (README.md and docs/*.md): each region between "// readme:begin NAME"
// and "// readme:end NAME" is the block marked <!-- readme:NAME --> on
// some page, and the program's tests check that they are equal.
//
//	ONCE_KEY=$(openssl rand -hex 32) go run ./examples/readme [-orm gorm,bun,sqlx] [-by-hand]
//
// It opens DATABASE_URL (a SQLite file when unset; postgres://... or
// mysql://... switch), starts once on it with oncesql.Start (with -by-hand:
// creates the lease table and holds a machine-ID lease on the same
// database piece by piece), stores a user and two posts with each ORM chosen (the
// -orm flag, or ORM in the environment; all three by default), reads the
// posts back and prints each as JSON next to its stored bigint. Any failure
// exits with status 1.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
	"github.com/once-go/once/oncesql"
)

// orms are the ORM parts of the program by -orm name: save stores a user and
// two posts in the ORM's own tables and returns the posts as read back; posts
// is the name of the posts table.
var orms = map[string]struct {
	save  func(context.Context, *sql.DB) ([]Post, error)
	posts string
}{
	"gorm": {saveGORM, "gorm_posts"},
	"bun":  {saveBun, "posts"},
	"sqlx": {saveSqlx, "sqlx_posts"},
}

func main() {
	// ctx ends on SIGINT or SIGTERM: the program stops what it is doing,
	// then closes the lease manager and the database.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout, os.Args[1:])
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "readme:", err)
		os.Exit(1)
	}
}

// run is the program: ctx is the application's context, args are the
// command-line arguments, and DATABASE_URL, ONCE_KEY, ONCE_STATE_FILE and
// ORM come from the environment.
func run(ctx context.Context, out io.Writer, args []string) (err error) {
	flags := flag.NewFlagSet("readme", flag.ContinueOnError)
	ormFlag := flags.String("orm", cmp.Or(os.Getenv("ORM"), "gorm,bun,sqlx"), "ORMs to use, comma-separated: gorm, bun, sqlx")
	byHand := flags.Bool("by-hand", false, "start with the pieces oncesql.Start puts together (docs/leases.md)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	names := strings.Split(*ormFlag, ",")
	for _, name := range names {
		if _, ok := orms[name]; !ok {
			return fmt.Errorf("-orm: unknown ORM %.20q (want gorm, bun or sqlx)", name)
		}
	}
	if *byHand {
		return runByHand(ctx, out, names)
	}

	// readme:begin start
	// Imports: "context", "errors", "os", "github.com/once-go/once/once",
	// "github.com/once-go/once/oncesql".
	db, pool, err := openDB(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer func() { // last: after the generator's Close, deferred below
		err = errors.Join(err, db.Close())
		if pool != nil {
			pool.Close()
		}
	}()
	// Start creates the lease table unless it exists, holds a machine ID on
	// db (renewed until Close; ctx bounds the start only) and makes every ID
	// type draw new IDs and masking from the key.
	ids, err := oncesql.Start(ctx, db, oncesql.Config{
		Key:       []byte(os.Getenv("ONCE_KEY")),   // 32+ bytes: openssl rand -hex 32
		Check:     []once.Spec{UserID{}, PostID{}}, // their options, checked now
		StateFile: os.Getenv("ONCE_STATE_FILE"),    // "": once-lease.json
	})
	if err != nil {
		return err // oncesql.ErrConfig names the setting; lease.ErrTimeout: no free machine ID
	}
	defer func() { err = errors.Join(err, ids.Close(context.Background())) }() // stops new IDs, releases the machine ID
	// readme:end start

	return save(ctx, out, db, pool, ids.MachineID(), names)
}

// runByHand is run with the pieces that oncesql.Start puts together, as
// docs/leases.md shows them.
func runByHand(ctx context.Context, out io.Writer, names []string) (err error) {
	// readme:begin migrate
	// Imports: "errors", "os", "github.com/once-go/once/migrations".
	db, pool, err := openDB(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer func() { // last: after the lease manager's Close, deferred below
		err = errors.Join(err, db.Close())
		if pool != nil {
			pool.Close()
		}
	}()
	// Create the lease table once_leases (512 rows) unless it exists; the
	// dialect (0: not given) is detected from db's driver.
	if err := migrations.Apply(ctx, db, 0, ""); err != nil {
		return err
	}
	// readme:end migrate

	// readme:begin key
	// Imports: "errors", "os", "github.com/once-go/once/nonce",
	// "github.com/once-go/once/once".
	// ONCE_KEY is used as is, as raw bytes (not decoded), and must be at least
	// 32 bytes: e.g. the output of openssl rand -hex 32.
	key := []byte(os.Getenv("ONCE_KEY"))
	if len(key) == 0 {
		return errors.New("ONCE_KEY is not set (32+ bytes, e.g. $(openssl rand -hex 32))")
	}
	ids, err := nonce.New(nonce.Config{BaseKey: key}) // generates once a lease is held
	if err != nil {
		return err
	}
	once.DefaultBinding().Set(ids) // new IDs and masking for every ID type
	if err := once.Check(UserID{}, PostID{}); err != nil {
		return err // invalid ID options, reported at startup
	}
	// readme:end key

	// readme:begin lease
	// Imports: "cmp", "context", "errors", "log", "os", "time",
	// "github.com/once-go/once/lease", "github.com/once-go/once/lease/sqllease",
	// "github.com/once-go/once/nonce".
	strategy, err := sqllease.New(db, sqllease.Options{}) // table once_leases, dialect from the driver
	if err != nil {
		return err
	}
	// ctx bounds the start only (with AcquireTimeout); the manager renews
	// the machine ID until Close and logs through slog.Default (a loss at
	// ERROR). With StateFile a process restarted in the same place takes its
	// own unexpired lease back: no ID leaks per crash.
	m, err := lease.Start(ctx, strategy, lease.Options{
		Factories:      []*nonce.Factory{ids},
		AcquireTimeout: 30 * time.Second,
		StateFile:      cmp.Or(os.Getenv("ONCE_STATE_FILE"), "once-lease.json"),
	})
	if err != nil {
		return err // lease.ErrTimeout: no free machine ID in time; lease.ErrConfig: fix the setup
	}
	// Close stops generation, then releases the machine ID; deferred after
	// the database's Close, it runs before it. run returns its error.
	defer func() { err = errors.Join(err, m.Close(context.Background())) }()
	log.Printf("once: machine ID %d", m.MachineID())
	// readme:end lease

	return save(ctx, out, db, pool, m.MachineID(), names)
}

// save stores a user and two posts with each ORM of names and prints the
// posts as JSON beside their stored bigints, after the machine ID.
func save(ctx context.Context, out io.Writer, db *sql.DB, pool *pgxpool.Pool, machineID int, names []string) error {
	fmt.Fprintf(out, "machine ID %d\n", machineID)
	for _, name := range names {
		posts, err := orms[name].save(ctx, db)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(posts) != 2 {
			return fmt.Errorf("%s: read back %d posts, want 2", name, len(posts))
		}
		for _, p := range posts {
			js, err := json.Marshal(p)
			if err != nil {
				return err
			}
			stored, err := storedID(ctx, db, pool, orms[name].posts, p.ID)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Fprintf(out, "%-4s  %s  %d\n", name, js, stored)
		}
	}
	return nil
}

// storedID reads the bigint that table holds for id, with pgx itself on
// PostgreSQL (the pool shared with database/sql) and through db elsewhere.
func storedID(ctx context.Context, db *sql.DB, pool *pgxpool.Pool, table string, id PostID) (stored int64, err error) {
	if pool != nil {
		err = pool.QueryRow(ctx, `SELECT id FROM `+table+` WHERE id = $1`, id).Scan(&stored)
	} else {
		err = db.QueryRowContext(ctx, `SELECT id FROM `+table+` WHERE id = ?`, id).Scan(&stored)
	}
	return stored, err
}
