package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		require.NoError(t, err, "create ada")
		posts, err := c.Post.CreateBulk(c.Post.Create().SetTitle("a").SetAuthor(ada), c.Post.Create().SetTitle("b").SetAuthor(ada)).Save(ctx)
		require.NoError(t, err, "create posts")
		const bug = "sql/scan: missing struct field for column: id"
		_, err = c.User.Query().IDs(ctx)
		assert.ErrorContains(t, err, bug, "IDs: want ent's bug (if ent fixed it, update the README's pattern)")
		_, err = c.User.Query().Where(user.Email("ada@example.com")).Exist(ctx)
		assert.ErrorContains(t, err, bug, "Exist: want ent's bug")
		_, err = ada.QueryPosts().FirstID(ctx)
		assert.ErrorContains(t, err, bug, "FirstID: want ent's bug")

		// The pattern.
		if n, err := c.User.Query().Where(user.Email("ada@example.com")).Count(ctx); assert.NoError(t, err, "Count for Exist") {
			assert.Equal(t, 1, n, "Count for Exist")
		}
		keys, err := ada.QueryPosts().Select(post.FieldID).All(ctx)
		if assert.NoError(t, err, "Select(FieldID).All") && assert.Len(t, keys, 2, "Select(FieldID).All") {
			want := []ids.PostID{posts[0].ID, posts[1].ID}
			assert.NotEqual(t, keys[0].ID, keys[1].ID, "Select(FieldID).All: %v; want two keys", keys)
			assert.Contains(t, want, keys[0].ID, "Select(FieldID).All: %v; want the posts' keys %v", keys, want)
			assert.Contains(t, want, keys[1].ID, "Select(FieldID).All: %v; want the posts' keys %v", keys, want)
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
		require.NoError(t, err, "create users")
		tags, err := c.Tag.CreateBulk(c.Tag.Create().SetName("go"), c.Tag.Create().SetName("sql"), c.Tag.Create().SetName("ids")).Save(ctx)
		require.NoError(t, err, "create tags")
		posts, err := c.Post.CreateBulk(
			c.Post.Create().SetTitle("one").SetAuthor(users[0]).AddTags(tags[0], tags[1]),
			c.Post.Create().SetTitle("two").SetAuthor(users[1]).SetEditor(users[0]).AddTags(tags[2]),
			c.Post.Create().SetTitle("three").SetAuthorID(users[1].ID),
		).Save(ctx)
		require.NoError(t, err, "create posts")
		want := map[ids.PostID][2]int{posts[0].ID: {0, 2}, posts[1].ID: {1, 1}, posts[2].ID: {1, 0}} // author, tag count
		for id, w := range want {
			p, err := c.Post.Query().Where(post.ID(id)).WithAuthor().WithTags().Only(ctx)
			if !assert.NoError(t, err, "post %v", id) {
				continue
			}
			if assert.NotNil(t, p.Edges.Author, "post %v: %+v; want the author loaded", id, p) {
				assert.Equal(t, users[w[0]].ID, p.Edges.Author.ID, "post %v: %+v; want author %v", id, p, users[w[0]].ID)
			}
			assert.Len(t, p.Edges.Tags, w[1], "post %v: %+v; tags", id, p)
		}
		if n, err := c.Tag.Query().Count(ctx); assert.NoError(t, err, "tags") {
			assert.Equal(t, 3, n, "tags")
		}
	})
}
