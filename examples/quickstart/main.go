// Command quickstart is the whole wiring of once in one function: open the
// database, start once on it (oncesql.Start: the lease table, a machine-ID
// lease, the nonce factory as the generator of IDs), and let GORM fill
// typed, masked IDs before each INSERT. It prints what the application shows next to what the
// database holds.
//
//	go run ./examples/quickstart
//
// With no configuration it uses the SQLite file once-quickstart.db in the
// system's temp directory, as both the application database and the lease
// coordinator; DATABASE_URL=postgres://..., mysql://... or a plain driver
// DSN switches database (the forms are in README.md). ONCE_KEY is the masking key.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	oncegorm "github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/once"
	"github.com/once-go/once/oncesql"
)

// UserID is a typed ID: shown as "usr_" + 11 characters, masked (the text
// does not reveal the counter behind it), stored as a plain bigint.
type UserID = once.Typed[userSpec]

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// User is a GORM model whose primary key is a UserID.
type User struct {
	ID    UserID `json:"id"` // bigint primary key, filled before INSERT
	Email string `json:"email"`
}

// demoKey masks IDs when ONCE_KEY is not set. It is public: masked IDs
// made with it hide nothing.
const demoKey = "once-quickstart-demo-key-do-not-use-in-production"

func main() {
	// The application's context: it ends on SIGINT or SIGTERM. It bounds
	// oncesql.Start only (with lease.Options.AcquireTimeout); the lease is
	// then renewed until Close.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv("DATABASE_URL"), os.Getenv("ONCE_KEY"), "quickstart_users"); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run wires everything on one connection pool and stores three users in
// table. key is used as raw bytes, exactly as the Elixir library reads its
// key: the same ONCE_KEY gives the same masked IDs in both.
func run(ctx context.Context, out io.Writer, databaseURL, key, table string) (err error) {
	// 1. The application's database: one pool for the app and the lease.
	dbc, err := parseDatabaseURL(databaseURL)
	if err != nil {
		return err
	}
	db, err := sql.Open(dbc.driver, dbc.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect to %s: %w", dbc.where, err)
	}
	hint := ""
	if databaseURL == "" {
		hint = " (DATABASE_URL=postgres://... or mysql://... to switch)"
	}
	fmt.Fprintf(out, "database  %s%s\n", dbc.where, hint)

	// 2. once on the same database: oncesql.Start creates the lease table
	// (idempotent), makes the nonce factory from the key, holds a machine ID
	// (blocking at most AcquireTimeout, or until ctx ends; renewed in the
	// background until Close) and binds the factory for every ID type.
	baseKey, demo := []byte(key), key == ""
	if demo {
		baseKey = []byte(demoKey)
		fmt.Fprintln(out, "NOTE      ONCE_KEY is not set: IDs are masked with the public demo key and hide nothing.\n"+
			"          Set ONCE_KEY to 32+ random bytes, used as is, e.g. export ONCE_KEY=$(openssl rand -hex 32)")
	}
	ids, err := oncesql.Start(ctx, db, oncesql.Config{
		Key: baseKey,
		// The public demo key is refused unless AllowDemoKey opts in: the
		// quickstart does, only while ONCE_KEY is unset.
		AllowDemoKey: demo,
		Check:        []once.Spec{UserID{}},
		// A one-shot program releases its machine ID at exit; a service
		// keeps the default state file, to take its lease back after a crash.
		NoStateFile: true,
		Lease: lease.Options{
			AcquireTimeout: 20 * time.Second,
			Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		},
	})
	if err != nil {
		return err // oncesql.ErrConfig names the setting to fix; lease.ErrTimeout: no free machine ID in time
	}
	defer func() {
		// Close stops new IDs, then releases the machine ID.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = errors.Join(err, ids.Close(cctx))
		fmt.Fprintln(out, "lease     released")
	}()
	defer once.DefaultBinding().Set(nil)
	fmt.Fprintf(out, "lease     machine ID %d (table %s)\n", ids.MachineID(), migrations.DefaultTable)

	// 3. GORM on the same pool, with the plugin that fills IDs before each
	// INSERT and gives ID columns their types (never auto-increment).
	g, err := gorm.Open(gormDialector(dbc.driver, db), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	if err := oncegorm.Register(g.Table(table), &User{}); err != nil {
		return err
	}
	if err := g.Table(table).AutoMigrate(&User{}); err != nil {
		return err
	}
	users := []User{{Email: "ada@example.com"}, {Email: "grace@example.com"}, {Email: "edsger@example.com"}}
	if err := g.Table(table).Create(&users).Error; err != nil {
		return err
	}

	// What the application shows (JSON) next to what the table holds.
	rows := make([][2]string, len(users))
	width := len("JSON (what the API shows)")
	for i, u := range users {
		js, err := json.Marshal(u)
		if err != nil {
			return err
		}
		var stored int64
		if err := g.Table(table).Select("id").Where("id = ?", u.ID).Row().Scan(&stored); err != nil {
			return err
		}
		rows[i] = [2]string{string(js), fmt.Sprint(stored)}
		width = max(width, len(js))
	}
	fmt.Fprintf(out, "\n%-*s  %s\n", width, "JSON (what the API shows)", "stored id (bigint)")
	for _, r := range rows {
		fmt.Fprintf(out, "%-*s  %s\n", width, r[0], r[1])
	}

	// A client sends the text back: parse it (prefix, length, mask) and load.
	text := users[0].ID.String()
	id, err := once.ParseAs[UserID](text)
	if err != nil {
		return err
	}
	var found User
	if err := g.Table(table).First(&found, "id = ?", id).Error; err != nil {
		return err
	}
	fmt.Fprintf(out, "\nGET /users/%s -> %s\n\n", text, found.Email)
	return nil
}
