package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/once-go/once/examples/sqlc/db/postgres"
	"github.com/once-go/once/examples/sqlc/ids"
	"github.com/once-go/once/once"
)

// TestPostgresQueries runs the generated PostgreSQL code: Create fills IDs,
// FKs and the nullable FK round-trip as typed IDs, a zero ID or a missing
// referenced row is refused, and nothing is stored without a generator.
func TestPostgresQueries(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, "postgres")
	q := postgres.New(db)

	ada, err := q.CreateUser(ctx, postgres.InsertUserParams{Email: "ada@example.com"})
	if err != nil || ada.ID.IsZero() {
		t.Fatalf("CreateUser: %+v, %v", ada, err)
	}
	if got, err := q.GetUser(ctx, ada.ID); err != nil || got != ada {
		t.Errorf("GetUser(%v) = %+v, %v", ada.ID, got, err)
	}
	grace, err := q.CreateUser(ctx, postgres.InsertUserParams{Email: "grace@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := q.CreatePost(ctx, postgres.InsertPostParams{AuthorID: ada.ID, Title: "Notes"})
	if err != nil || p.ID.IsZero() || p.EditorID != nil {
		t.Fatalf("CreatePost: %+v, %v", p, err)
	}
	if js, err := json.Marshal(p); err != nil || string(js) != `{"id":"`+p.ID.String()+`","author_id":"`+ada.ID.String()+`","title":"Notes"}` {
		t.Errorf("JSON %s, %v", js, err)
	}

	// The nullable FK: set, read back, and cleared again.
	if err := q.SetEditor(ctx, postgres.SetEditorParams{ID: p.ID, EditorID: &grace.ID}); err != nil {
		t.Fatal(err)
	}
	if got, err := q.GetPost(ctx, p.ID); err != nil || got.EditorID == nil || *got.EditorID != grace.ID {
		t.Errorf("GetPost after SetEditor: %+v, %v", got, err)
	}
	rows, err := q.ListPostsWithEditor(ctx)
	if err != nil || len(rows) != 1 || rows[0].EditorEmail.String != "grace@example.com" {
		t.Errorf("ListPostsWithEditor: %+v, %v", rows, err)
	}
	if err := q.SetEditor(ctx, postgres.SetEditorParams{ID: p.ID}); err != nil {
		t.Fatal(err)
	}
	if got, err := q.GetPost(ctx, p.ID); err != nil || got.EditorID != nil {
		t.Errorf("GetPost after clearing the editor: %+v, %v", got, err)
	}
	if rows, err := q.ListPostsWithEditor(ctx); err != nil || len(rows) != 1 || rows[0].EditorID != nil || rows[0].EditorEmail.Valid {
		t.Errorf("ListPostsWithEditor without an editor: %+v, %v", rows, err)
	}
	if posts, err := q.ListPostsByAuthor(ctx, ada.ID); err != nil || len(posts) != 1 || posts[0].ID != p.ID {
		t.Errorf("ListPostsByAuthor(%v): %+v, %v", ada.ID, posts, err)
	}

	// A zero ID never reaches the table: the generated insert fails, for
	// the key and for a foreign key left unset.
	if _, err := q.InsertUser(ctx, postgres.InsertUserParams{Email: "nobody@example.com"}); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("InsertUser with a zero ID: %v, want once.ErrInvalid", err)
	}
	if _, err := q.CreatePost(ctx, postgres.InsertPostParams{Title: "no author"}); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("InsertPost with a zero author: %v, want once.ErrInvalid", err)
	}
	// The FK holds: an author that was never stored is refused.
	stranger, err := once.NewAs[ids.UserID]()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.CreatePost(ctx, postgres.InsertPostParams{AuthorID: stranger, Title: "orphan"}); err == nil {
		t.Error("CreatePost with an author that does not exist: no error")
	}
	// Without a generator, Create fails and stores nothing.
	once.SetGenerator(nil)
	if _, err := q.CreateUser(ctx, postgres.InsertUserParams{Email: "late@example.com"}); !errors.Is(err, once.ErrNoGenerator) {
		t.Errorf("CreateUser without a generator: %v, want once.ErrNoGenerator", err)
	}
	if users, posts := count(t, db, "sqlc_users"), count(t, db, "sqlc_posts"); users != 2 || posts != 1 {
		t.Errorf("tables hold %d users and %d posts, want 2 and 1", users, posts)
	}
}
