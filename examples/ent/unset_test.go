package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

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
		if err != nil {
			t.Fatal(err)
		}
		post, err := c.Post.Create().SetTitle("Notes").SetAuthor(ada).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.take()
		refused := func(what string, err error, field string) {
			t.Helper()
			if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), "oncent: Post."+field+" ") {
				t.Errorf("%s: %v, want once.ErrInvalid naming Post.%s", what, err, field)
			}
			if s := l.take(); len(s) != 0 {
				t.Errorf("%s: ran %q", what, s)
			}
		}
		_, err = c.Post.Create().SetTitle("x").SetAuthorID(ids.UserID{}).Save(ctx)
		refused("create, zero foreign key", err, "author_id")

		var in ent.Post
		if err := json.Unmarshal([]byte(`{"title":"x","author_id":"`+ada.ID.String()+`","editor_id":""}`), &in); err != nil {
			t.Fatal(err)
		}
		_, err = c.Post.Create().SetTitle(in.Title).SetAuthorID(in.AuthorID).SetNillableEditorID(in.EditorID).Save(ctx)
		refused(`create, *T from JSON ""`, err, "editor_id")

		_, err = c.Post.CreateBulk(c.Post.Create().SetTitle("a").SetAuthor(ada), c.Post.Create().SetTitle("b").SetAuthorID(ids.UserID{})).Save(ctx)
		refused("bulk create, zero foreign key", err, "author_id")

		err = c.Post.UpdateOneID(post.ID).SetAuthorID(ids.UserID{}).Exec(ctx)
		refused("update, zero foreign key", err, "author_id")
		err = c.Post.Update().SetNillableEditorID(in.EditorID).Exec(ctx)
		refused(`update, *T from JSON ""`, err, "editor_id")

		if n, err := c.Post.Query().Count(ctx); err != nil || n != 1 {
			t.Errorf("%d posts (%v), want 1", n, err)
		}
		if p, err := c.Post.Get(ctx, post.ID); err != nil || p.AuthorID != ada.ID || p.EditorID != nil {
			t.Errorf("post after the refused updates: %+v (%v)", p, err)
		}
	})
}
