package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/examples/ent/ent"
	"github.com/once-go/once/examples/ent/ids"
	"github.com/once-go/once/once"
)

// TestUnsetID: a create or update that would write the zero ID fails
// before any SQL runs, with an error matching once.ErrInvalid that names
// the entity and field; a *T holding the zero ID (JSON "") the same.
func TestUnsetID(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, l := client(t, db)
		ada, err := c.User.Create().SetEmail("ada@example.com").Save(ctx)
		require.NoError(t, err, "create ada")
		post, err := c.Post.Create().SetTitle("Notes").SetAuthor(ada).Save(ctx)
		require.NoError(t, err, "create a post")
		l.take()
		refused := func(what string, err error, field string) {
			t.Helper()
			assert.ErrorIs(t, err, once.ErrInvalid, "%s: want once.ErrInvalid naming Post.%s", what, field)
			assert.ErrorContains(t, err, "oncent: Post."+field+" ", "%s: want once.ErrInvalid naming Post.%s", what, field)
			assert.Empty(t, l.take(), "%s: ran SQL", what)
		}
		_, err = c.Post.Create().SetTitle("x").SetAuthorID(ids.UserID{}).Save(ctx)
		refused("create, zero foreign key", err, "author_id")

		var in ent.Post
		require.NoError(t, json.Unmarshal([]byte(`{"title":"x","author_id":"`+ada.ID.String()+`","editor_id":""}`), &in), "JSON with editor_id \"\"")
		_, err = c.Post.Create().SetTitle(in.Title).SetAuthorID(in.AuthorID).SetNillableEditorID(in.EditorID).Save(ctx)
		refused(`create, *T from JSON ""`, err, "editor_id")

		_, err = c.Post.CreateBulk(c.Post.Create().SetTitle("a").SetAuthor(ada), c.Post.Create().SetTitle("b").SetAuthorID(ids.UserID{})).Save(ctx)
		refused("bulk create, zero foreign key", err, "author_id")

		err = c.Post.UpdateOneID(post.ID).SetAuthorID(ids.UserID{}).Exec(ctx)
		refused("update, zero foreign key", err, "author_id")
		err = c.Post.Update().SetNillableEditorID(in.EditorID).Exec(ctx)
		refused(`update, *T from JSON ""`, err, "editor_id")

		if n, err := c.Post.Query().Count(ctx); assert.NoError(t, err, "posts") {
			assert.Equal(t, 1, n, "posts")
		}
		if p, err := c.Post.Get(ctx, post.ID); assert.NoError(t, err, "post after the refused updates") {
			assert.Equal(t, ada.ID, p.AuthorID, "post after the refused updates: %+v; want author %v", p, ada.ID)
			assert.Nil(t, p.EditorID, "post after the refused updates: %+v; want no editor", p)
		}
	})
}
