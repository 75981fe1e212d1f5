package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"github.com/once-go/once/examples/sqlc/db/sqlite"
)

// demoSQLite creates the tables, then users and posts through the
// generated code for SQLite, and prints them as JSON.
func demoSQLite(ctx context.Context, out io.Writer, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		return err
	}
	q := sqlite.New(db)
	// Create* draw the IDs; nothing else in the program makes them.
	ada, err := q.CreateUser(ctx, sqlite.InsertUserParams{Email: "ada@example.com"})
	if err != nil {
		return err
	}
	grace, err := q.CreateUser(ctx, sqlite.InsertUserParams{Email: "grace@example.com"})
	if err != nil {
		return err
	}
	notes, err := q.CreatePost(ctx, sqlite.InsertPostParams{AuthorID: ada.ID, Title: "Notes"})
	if err != nil {
		return err
	}
	engine, err := q.CreatePost(ctx, sqlite.InsertPostParams{AuthorID: ada.ID, EditorID: &grace.ID, Title: "Engine"})
	if err != nil {
		return err
	}
	got, err := q.GetPost(ctx, engine.ID)
	if err != nil {
		return err
	}
	byAda, err := q.ListPostsByAuthor(ctx, ada.ID)
	if err != nil {
		return err
	}
	// engine is printed as GetPost read it back.
	for _, l := range []struct {
		label string
		v     any
	}{{"user", ada}, {"user", grace}, {"post", notes}, {"GetPost", got}, {"ByAuthor", byAda}} {
		if err := printJSON(out, l.label, l.v); err != nil {
			return err
		}
	}
	// The generated insert with the ID left unset fails before the database
	// sees the row.
	_, err = q.InsertUser(ctx, sqlite.InsertUserParams{Email: "nobody@example.com"})
	fmt.Fprintf(out, "%-9s %v\n", "zero ID", err)
	return nil
}
