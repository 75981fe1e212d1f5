package main

// readme:begin bun
import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/schema"

	oncebun "github.com/once-go/once/adapters/bun"
	"github.com/once-go/once/migrations"
)

// BeforeAppendModel fills a new user's ID before bun builds the INSERT.
func (u *User) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, u)
}

// BeforeAppendModel fills a new post's ID before bun builds the INSERT.
func (p *Post) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, p)
}

// saveBun stores a user and two posts with bun on the app's pool, in the
// tables users and posts, and reads the posts back.
func saveBun(ctx context.Context, db *sql.DB) ([]Post, error) {
	dialect, err := migrations.DetectDialect(db)
	if err != nil {
		return nil, err
	}
	bdb := bun.NewDB(db, map[migrations.Dialect]schema.Dialect{
		migrations.Postgres: pgdialect.New(),
		migrations.MySQL:    mysqldialect.New(),
		migrations.SQLite:   sqlitedialect.New(),
	}[dialect])
	// Register: ID column types for CreateTable; inserts of unregistered models fail.
	if err := oncebun.Register(bdb, (*User)(nil), (*Post)(nil)); err != nil {
		return nil, err
	}
	for _, model := range []any{(*User)(nil), (*Post)(nil)} {
		if _, err := bdb.NewCreateTable().Model(model).IfNotExists().Exec(ctx); err != nil {
			return nil, err
		}
	}
	ada := User{Email: "ada@example.com"}
	if _, err := bdb.NewInsert().Model(&ada).Exec(ctx); err != nil { // ada.ID is set now
		return nil, err
	}
	posts := []Post{{AuthorID: ada.ID, Title: "Notes"}, {AuthorID: ada.ID, EditorID: &ada.ID, Title: "Engine"}}
	if _, err := bdb.NewInsert().Model(&posts).Exec(ctx); err != nil {
		return nil, err
	}
	var got []Post
	err = bdb.NewSelect().Model(&got).Where("author_id = ?", ada.ID).Order("title").Scan(ctx)
	return got, err
}

// readme:end bun
