package main

import (
	"context"
	"strings"
	"testing"

	"github.com/once-go/once/examples/ent/ent/post"
	"github.com/once-go/once/examples/ent/ent/user"
	"github.com/once-go/once/examples/ent/ids"
)

// TestIDQueries pins an ent bug with struct key types and its pattern.
// ent's generated IDs, FirstID, OnlyID and Exist scan the keys into a
// []T; ent's scanner takes a struct T for a row struct unless T itself
// (not *T) is a sql.Scanner, so they fail with "sql/scan: missing struct
// field for column: id" (ent #4139, #4348; uuid.UUID escapes it by being
// an array). The pattern: Count for Exist, and the entities' keys from
// Select(FieldID).All.
func TestIDQueries(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, _ := client(t, db)
		ada, err := c.User.Create().SetEmail("ada@example.com").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		posts, err := c.Post.CreateBulk(c.Post.Create().SetTitle("a").SetAuthor(ada), c.Post.Create().SetTitle("b").SetAuthor(ada)).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		const bug = "sql/scan: missing struct field for column: id"
		if _, err := c.User.Query().IDs(ctx); err == nil || !strings.Contains(err.Error(), bug) {
			t.Errorf("IDs: %v, want ent's %q (if ent fixed it, update the README's pattern)", err, bug)
		}
		if _, err := c.User.Query().Where(user.Email("ada@example.com")).Exist(ctx); err == nil || !strings.Contains(err.Error(), bug) {
			t.Errorf("Exist: %v, want ent's %q", err, bug)
		}
		if _, err := ada.QueryPosts().FirstID(ctx); err == nil || !strings.Contains(err.Error(), bug) {
			t.Errorf("FirstID: %v, want ent's %q", err, bug)
		}

		// The pattern.
		if n, err := c.User.Query().Where(user.Email("ada@example.com")).Count(ctx); err != nil || n != 1 {
			t.Errorf("Count for Exist: %d (%v)", n, err)
		}
		keys, err := ada.QueryPosts().Select(post.FieldID).All(ctx)
		if err != nil || len(keys) != 2 || keys[0].ID == keys[1].ID ||
			keys[0].ID != posts[0].ID && keys[0].ID != posts[1].ID || keys[1].ID != posts[0].ID && keys[1].ID != posts[1].ID {
			t.Errorf("Select(FieldID).All: %v (%v)", keys, err)
		}
	})
}

// TestBulkCreate: CreateBulk with once keys of two DB formats, with
// foreign keys and many-to-many edges set per builder (ent #2290 is a bulk
// create with GoType keys), reads every entity back under its key.
func TestBulkCreate(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, _ := client(t, db)
		users, err := c.User.CreateBulk(c.User.Create().SetEmail("ada@example.com"), c.User.Create().SetEmail("grace@example.com")).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tags, err := c.Tag.CreateBulk(c.Tag.Create().SetName("go"), c.Tag.Create().SetName("sql"), c.Tag.Create().SetName("ids")).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		posts, err := c.Post.CreateBulk(
			c.Post.Create().SetTitle("one").SetAuthor(users[0]).AddTags(tags[0], tags[1]),
			c.Post.Create().SetTitle("two").SetAuthor(users[1]).SetEditor(users[0]).AddTags(tags[2]),
			c.Post.Create().SetTitle("three").SetAuthorID(users[1].ID),
		).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[ids.PostID][2]int{posts[0].ID: {0, 2}, posts[1].ID: {1, 1}, posts[2].ID: {1, 0}} // author, tag count
		for id, w := range want {
			p, err := c.Post.Query().Where(post.ID(id)).WithAuthor().WithTags().Only(ctx)
			if err != nil || p.Edges.Author.ID != users[w[0]].ID || len(p.Edges.Tags) != w[1] {
				t.Errorf("post %v: %+v (%v)", id, p, err)
			}
		}
		var n int
		if n, err = c.Tag.Query().Count(ctx); err != nil || n != 3 {
			t.Errorf("tags: %d (%v)", n, err)
		}
	})
}
