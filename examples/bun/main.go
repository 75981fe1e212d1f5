// Command bun shows once IDs with bun: a model hook fills keys before the
// INSERT (single and bulk), CreateTable uses the ID column types, and a
// relation joins on typed foreign keys.
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable go run ./examples/bun
//
// DATABASE_URL defaults to that local PostgreSQL; mysql://... works too.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	oncebun "github.com/once-go/once/adapters/bun"
	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/once"
)

type (
	userSpec struct{}
	postSpec struct{}
	UserID   = once.Typed[userSpec]
	PostID   = once.Typed[postSpec]
)

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }
func (postSpec) Options() once.Options { return once.Options{Prefix: "pst_", Mask: true} }

type User struct {
	bun.BaseModel `bun:"table:bun_example_users"`
	ID            UserID  `bun:",pk" json:"id"`
	Email         string  `json:"email"`
	Posts         []*Post `bun:"rel:has-many,join:id=author_id" json:"posts,omitempty"`
}

// BeforeAppendModel fills the user's ID before bun builds an INSERT.
func (u *User) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, u)
}

type Post struct {
	bun.BaseModel `bun:"table:bun_example_posts"`
	ID            PostID `bun:",pk" json:"id"`
	AuthorID      UserID `bun:",notnull" json:"author_id"`
	Title         string `json:"title"`
}

func (p *Post) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, p)
}

func main() { exampledb.Main("bun", run) }

// run is the example proper: db is open and a machine-ID lease on it is
// held (exampledb.Run), so once IDs can be made.
func run(ctx context.Context, out io.Writer, db *exampledb.DB) (err error) {
	var b *bun.DB
	switch db.Dialect {
	case migrations.Postgres:
		b = bun.NewDB(db.SQL, pgdialect.New())
	case migrations.MySQL:
		b = bun.NewDB(db.SQL, mysqldialect.New())
	default:
		b = bun.NewDB(db.SQL, sqlitedialect.New())
	}
	// Column types for the ID fields (bigint here: the default DB format).
	if err := oncebun.Register(b, (*User)(nil), (*Post)(nil)); err != nil {
		return err
	}
	drop := func() error {
		for _, m := range []any{(*Post)(nil), (*User)(nil)} {
			if _, err := b.NewDropTable().Model(m).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	if err := drop(); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, drop()) }()
	for _, m := range []any{(*User)(nil), (*Post)(nil)} {
		if _, err := b.NewCreateTable().Model(m).Exec(ctx); err != nil {
			return err
		}
	}

	u := User{Email: "grace@example.com"}
	if _, err := b.NewInsert().Model(&u).Exec(ctx); err != nil {
		return err
	}
	posts := []*Post{{AuthorID: u.ID, Title: "COBOL"}, {AuthorID: u.ID, Title: "Nanoseconds"}}
	if _, err := b.NewInsert().Model(&posts).Exec(ctx); err != nil { // bulk: one INSERT
		return err
	}

	// Load the user by an ID parsed from text, with its posts.
	id, err := once.ParseAs[UserID](u.ID.String())
	if err != nil {
		return err
	}
	var got User
	if err := b.NewSelect().Model(&got).Relation("Posts").Where("?TableAlias.id = ?", id).Scan(ctx); err != nil {
		return err
	}
	js, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "loaded %s\n", js)
	return nil
}
