package main

// readme:begin sqlx
import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"

	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/migrations"
)

// saveSqlx stores a user and two posts with sqlx on the app's pool, in the
// tables sqlx_users and sqlx_posts, and reads the posts back.
func saveSqlx(ctx context.Context, db *sql.DB) ([]Post, error) {
	dialect, err := migrations.DetectDialect(db)
	if err != nil {
		return nil, err
	}
	x := sqlx.NewDb(db, map[migrations.Dialect]string{
		migrations.Postgres: "pgx",
		migrations.MySQL:    "mysql",
		migrations.SQLite:   "sqlite",
	}[dialect])
	userID, err := oncesqlx.ColumnType(x, UserID{}) // bigint (integer on SQLite)
	if err != nil {
		return nil, err
	}
	postID, err := oncesqlx.ColumnType(x, PostID{})
	if err != nil {
		return nil, err
	}
	for _, ddl := range []string{
		`CREATE TABLE IF NOT EXISTS sqlx_users (id ` + userID + ` PRIMARY KEY, email varchar(255) NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS sqlx_posts (id ` + postID + ` PRIMARY KEY, author_id ` + userID + ` NOT NULL,
			editor_id ` + userID + `, title varchar(255) NOT NULL)`,
	} {
		if _, err := x.ExecContext(ctx, ddl); err != nil {
			return nil, err
		}
	}
	// NamedExec fills the IDs (oncesqlx.Fill), then runs sqlx's NamedExecContext.
	ada := User{Email: "ada@example.com"}
	if _, err := oncesqlx.NamedExec(ctx, x, `INSERT INTO sqlx_users (id, email) VALUES (:id, :email)`, &ada); err != nil {
		return nil, err
	}
	posts := []Post{{AuthorID: ada.ID, Title: "Notes"}, {AuthorID: ada.ID, EditorID: &ada.ID, Title: "Engine"}}
	if _, err := oncesqlx.NamedExec(ctx, x, `INSERT INTO sqlx_posts (id, author_id, editor_id, title)
		VALUES (:id, :author_id, :editor_id, :title)`, posts); err != nil {
		return nil, err
	}
	var got []Post
	err = x.SelectContext(ctx, &got, x.Rebind(`SELECT id, author_id, editor_id, title FROM sqlx_posts
		WHERE author_id = ? ORDER BY title`), ada.ID)
	return got, err
}

// readme:end sqlx
