// Command quickstart stores a few users with typed, masked once IDs through
// GORM and shows what the application sees next to what the database holds.
//
//	go run ./examples/quickstart
//
// With no configuration it uses the SQLite file once-quickstart.db in the
// system's temp directory, as both the application database and the lease
// coordinator; DATABASE_URL=postgres://... or mysql://... switches database.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/examples/internal/examplegorm"
	"github.com/once-go/once/once"
)

// UserID is a typed ID: shown as "usr_" + 11 characters, masked (the text
// does not reveal the counter behind it), stored as a plain bigint.
type UserID = once.Typed[userKind]

type userKind struct{}

func (userKind) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// User is a GORM model whose primary key is a UserID.
type User struct {
	ID    UserID `json:"id"`
	Email string `json:"email"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv("DATABASE_URL"), "quickstart_users"); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, databaseURL, table string) (err error) {
	db, err := exampledb.Open(ctx, databaseURL, "once-quickstart.db")
	if err != nil {
		return err
	}
	defer db.Close()
	hint := ""
	if databaseURL == "" {
		hint = " (DATABASE_URL=postgres://... or mysql://... to switch)"
	}
	fmt.Fprintf(out, "database  %s%s\n", db.Where, hint)

	// Lease a machine ID from the same database: IDs are generated only
	// while the lease is held.
	l, err := exampledb.StartLease(ctx, db, os.Stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
		fmt.Fprintln(out, "lease     released")
	}()
	fmt.Fprintf(out, "lease     machine ID %d (table once_leases)\n", l.Manager.MachineID())
	if l.DemoKey {
		fmt.Fprintln(out, exampledb.DemoKeyNote)
	}

	g, err := examplegorm.Open(db)
	if err != nil {
		return err
	}
	if err := oncegorm.Register(g.Table(table), &User{}); err != nil {
		return err
	}
	if err := g.Table(table).AutoMigrate(&User{}); err != nil {
		return err
	}

	// The plugin fills the IDs before the INSERT: no round trip.
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
