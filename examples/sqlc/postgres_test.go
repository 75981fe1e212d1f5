package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err, "CreateUser")
	require.False(t, ada.ID.IsZero(), "CreateUser: %+v", ada)
	if got, err := q.GetUser(ctx, ada.ID); assert.NoError(t, err, "GetUser(%v)", ada.ID) {
		assert.Equal(t, ada, got, "GetUser(%v)", ada.ID)
	}
	grace, err := q.CreateUser(ctx, postgres.InsertUserParams{Email: "grace@example.com"})
	require.NoError(t, err)
	p, err := q.CreatePost(ctx, postgres.InsertPostParams{AuthorID: ada.ID, Title: "Notes"})
	require.NoError(t, err, "CreatePost")
	require.False(t, p.ID.IsZero(), "CreatePost: %+v", p)
	require.Nil(t, p.EditorID, "CreatePost: EditorID")
	if js, err := json.Marshal(p); assert.NoError(t, err, "JSON") {
		assert.Equal(t, `{"id":"`+p.ID.String()+`","author_id":"`+ada.ID.String()+`","title":"Notes"}`, string(js), "JSON")
	}

	// The nullable FK: set, read back, and cleared again.
	require.NoError(t, q.SetEditor(ctx, postgres.SetEditorParams{ID: p.ID, EditorID: &grace.ID}))
	if got, err := q.GetPost(ctx, p.ID); assert.NoError(t, err, "GetPost after SetEditor") && assert.NotNil(t, got.EditorID, "GetPost after SetEditor: EditorID") {
		assert.Equal(t, grace.ID, *got.EditorID, "GetPost after SetEditor: EditorID")
	}
	rows, err := q.ListPostsWithEditor(ctx)
	if assert.NoError(t, err, "ListPostsWithEditor") && assert.Len(t, rows, 1, "ListPostsWithEditor") {
		assert.Equal(t, "grace@example.com", rows[0].EditorEmail.String, "ListPostsWithEditor: editor email")
	}
	require.NoError(t, q.SetEditor(ctx, postgres.SetEditorParams{ID: p.ID}))
	if got, err := q.GetPost(ctx, p.ID); assert.NoError(t, err, "GetPost after clearing the editor") {
		assert.Nil(t, got.EditorID, "GetPost after clearing the editor: EditorID")
	}
	if rows, err := q.ListPostsWithEditor(ctx); assert.NoError(t, err, "ListPostsWithEditor without an editor") && assert.Len(t, rows, 1, "ListPostsWithEditor without an editor") {
		assert.Nil(t, rows[0].EditorID, "ListPostsWithEditor without an editor: EditorID")
		assert.False(t, rows[0].EditorEmail.Valid, "ListPostsWithEditor without an editor: editor email %v", rows[0].EditorEmail)
	}
	if posts, err := q.ListPostsByAuthor(ctx, ada.ID); assert.NoError(t, err, "ListPostsByAuthor(%v)", ada.ID) && assert.Len(t, posts, 1, "ListPostsByAuthor(%v)", ada.ID) {
		assert.Equal(t, p.ID, posts[0].ID, "ListPostsByAuthor(%v)", ada.ID)
	}

	// A zero ID never reaches the table: the generated insert fails, for
	// the key and for a foreign key left unset.
	_, err = q.InsertUser(ctx, postgres.InsertUserParams{Email: "nobody@example.com"})
	assert.ErrorIs(t, err, once.ErrInvalid, "InsertUser with a zero ID")
	_, err = q.CreatePost(ctx, postgres.InsertPostParams{Title: "no author"})
	assert.ErrorIs(t, err, once.ErrInvalid, "InsertPost with a zero author")
	// The FK holds: an author that was never stored is refused.
	stranger, err := once.NewAs[ids.UserID]()
	require.NoError(t, err)
	_, err = q.CreatePost(ctx, postgres.InsertPostParams{AuthorID: stranger, Title: "orphan"})
	assert.Error(t, err, "CreatePost with an author that does not exist: no error")
	// Without a generator, Create fails and stores nothing.
	once.DefaultBinding().Set(nil)
	_, err = q.CreateUser(ctx, postgres.InsertUserParams{Email: "late@example.com"})
	assert.ErrorIs(t, err, once.ErrNoGenerator, "CreateUser without a generator")
	assert.Equal(t, 2, count(t, db, "sqlc_users"), "users in the table")
	assert.Equal(t, 1, count(t, db, "sqlc_posts"), "posts in the table")
}
