// Command ent stores users and posts with typed once IDs through an ent
// client generated from ./ent/schema:
//
//	cd examples/ent && go run .   # a module of its own
//
// It opens DATABASE_URL (a SQLite file in the temp directory when unset;
// postgres://... or mysql://user@tcp(host:3306)/db switch), creates the lease
// table and ent's tables, holds a machine-ID lease on the same database,
// creates a user and, in one bulk create, two posts that reference it, and
// prints them as JSON next to the stored bigints. ONCE_KEY (32+ bytes, used
// as is) masks the IDs; without it the public demo key is used.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/glebarez/go-sqlite"  // database/sql driver "sqlite" (pure Go)
	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/once-go/once/examples/ent/ent"
	"github.com/once-go/once/examples/ent/ent/post"
	_ "github.com/once-go/once/examples/ent/ent/runtime" // schema defaults and hooks
	"github.com/once-go/once/examples/ent/ids"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// demoKey masks IDs when ONCE_KEY is not set. It is public: set ONCE_KEY.
const demoKey = "once ent example demo key, public: set ONCE_KEY!!"

func main() {
	// ctx lives as long as the process: the lease manager runs until it ends.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout, os.Getenv("DATABASE_URL"), "")
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ent:", err)
		os.Exit(1)
	}
}

// openDB opens url and returns the pool with ent's name for its dialect.
func openDB(url string) (*sql.DB, string, error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := sql.Open("pgx", url)
		return db, "postgres", err
	case strings.HasPrefix(url, "mysql://"):
		db, err := sql.Open("mysql", strings.TrimPrefix(url, "mysql://"))
		return db, "mysql", err
	case url == "", strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			path = filepath.Join(os.TempDir(), "once-ent.db")
		}
		// ent's migration needs foreign keys enabled on every connection.
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)")
		return db, "sqlite3", err
	}
	return nil, "", errors.New("DATABASE_URL: want postgres://..., mysql://... or sqlite:PATH")
}

// run is the program: url is DATABASE_URL, leaseTable the lease table (""
// for the default once_leases).
func run(ctx context.Context, out io.Writer, url, leaseTable string) (err error) {
	db, dialect, err := openDB(url)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	if err := migrations.Apply(ctx, db, 0, leaseTable); err != nil {
		return err
	}

	key, demo := []byte(os.Getenv("ONCE_KEY")), false
	if len(key) == 0 {
		key, demo = []byte(demoKey), true
	}
	// Generates once a lease is held. AllowDemoKey: nonce.New refuses the
	// public demo key unless told, and this demo allows it only when
	// ONCE_KEY is unset.
	factory, err := nonce.New(nonce.Config{BaseKey: key, AllowDemoKey: demo})
	if err != nil {
		return err
	}
	once.DefaultBinding().Set(factory)
	defer once.DefaultBinding().Set(nil)
	if err := once.Check(ids.UserID{}, ids.PostID{}); err != nil {
		return err
	}
	strategy, err := sqllease.New(db, sqllease.Options{Table: leaseTable})
	if err != nil {
		return err
	}
	m, err := lease.Start(ctx, strategy, lease.Options{Factories: []*nonce.Factory{factory}, AcquireTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.Close(context.Background())) }()
	fmt.Fprintf(out, "machine ID %d\n", m.MachineID())

	// The ent client shares db with the lease manager.
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect, db)))
	if err := client.Schema.Create(ctx); err != nil {
		return err
	}
	posts, err := save(ctx, client)
	if err != nil {
		return err
	}
	for _, p := range posts {
		js, err := json.Marshal(p)
		if err != nil {
			return err
		}
		var stored int64
		if err := db.QueryRowContext(ctx, rebind(dialect, "SELECT id FROM posts WHERE id = ?"), p.ID).Scan(&stored); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s  %d\n", js, stored)
	}
	return nil
}

// save creates a user and two posts (one bulk create; the hook fills every
// ID) and reads the posts back by the text of their IDs, with the author.
func save(ctx context.Context, client *ent.Client) ([]*ent.Post, error) {
	ada, err := client.User.Create().SetEmail(fmt.Sprintf("ada-%d@example.com", time.Now().UnixNano())).Save(ctx)
	if err != nil {
		return nil, err
	}
	created, err := client.Post.CreateBulk(
		client.Post.Create().SetTitle("Notes on the Analytical Engine").SetAuthor(ada),
		client.Post.Create().SetTitle("Sketch of the engine").SetAuthorID(ada.ID).SetEditorID(ada.ID),
	).Save(ctx)
	if err != nil {
		return nil, err
	}
	var posts []*ent.Post
	for _, p := range created {
		// What an API receives: the text of the ID ("pst_...").
		id, err := once.ParseAs[ids.PostID](p.ID.String())
		if err != nil {
			return nil, err
		}
		back, err := client.Post.Query().Where(post.ID(id)).WithAuthor().Only(ctx)
		if err != nil {
			return nil, err
		}
		posts = append(posts, back)
	}
	return posts, nil
}

// rebind turns ? placeholders into PostgreSQL's $n.
func rebind(dialect, q string) string {
	if dialect != "postgres" {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
