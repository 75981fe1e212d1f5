package main

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/examples/ent/ent"
	"github.com/once-go/once/examples/ent/ent/user"
)

// TestUpsert pins ent's upserts (feature sql/upsert) with once keys. ent
// sends the key the hook filled and reads the row's key back with
// RETURNING, so UpsertOne.ID answers the key of the row written to, on
// PostgreSQL and SQLite; the key is never rewritten (ent #1826: the key
// is ignored by UpdateNewValues); a DO NOTHING that skips the row is an
// error, not a key. On MySQL/MariaDB ent reads no non-integer key back:
// UpsertOne.ID fails naming itself, and Exec upserts without a key.
// Bulk upserts return no entities (Exec only), so no key can be wrong.
func TestUpsert(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, _ := client(t, db)
		ada, err := c.User.Create().SetEmail("ada@example.com").Save(ctx)
		require.NoError(t, err, "create ada")
		post, err := c.Post.Create().SetTitle("Notes").SetAuthor(ada).Save(ctx)
		require.NoError(t, err, "create a post")
		same := func() *ent.UserUpsertOne {
			return c.User.Create().SetEmail("ada@example.com").OnConflictColumns(user.FieldEmail).UpdateNewValues()
		}
		if db.dialect == "mysql" {
			_, err := same().ID(ctx)
			assert.ErrorContains(t, err, "UserUpsertOne.ID is not supported by MySQL driver", "UpsertOne.ID on MySQL: want ent's error naming the call")
			assert.NoError(t, same().Exec(ctx), "UpsertOne.Exec on MySQL")
		} else {
			id, err := same().ID(ctx)
			if assert.NoError(t, err, "UpdateNewValues") {
				assert.Equal(t, ada.ID, id, "UpdateNewValues: %v, want the existing %v", id, ada.ID)
			}
			fresh, err := c.User.Create().SetEmail("grace@example.com").OnConflictColumns(user.FieldEmail).UpdateNewValues().ID(ctx)
			if assert.NoError(t, err, "upsert of a new row") {
				assert.False(t, fresh.IsZero(), "upsert of a new row: %v, want a key", fresh)
				assert.NotEqual(t, ada.ID, fresh, "upsert of a new row: %v, want a key other than ada's", fresh)
			}
			ignored, err := c.User.Create().SetEmail("ada@example.com").OnConflictColumns(user.FieldEmail).Ignore().ID(ctx)
			if assert.NoError(t, err, "Ignore") {
				assert.Equal(t, ada.ID, ignored, "Ignore: %v, want the existing %v", ignored, ada.ID)
			}
			skipped, err := c.User.Create().SetEmail("ada@example.com").OnConflictColumns(user.FieldEmail).DoNothing().ID(ctx)
			assert.ErrorIs(t, err, sql.ErrNoRows, "DoNothing on an existing row: %v, want the zero key and sql.ErrNoRows", skipped)
			assert.True(t, skipped.IsZero(), "DoNothing on an existing row: %v (%v), want the zero key and sql.ErrNoRows", skipped, err)
		}
		// The key of the existing row is kept, and its posts still point
		// to it.
		got, err := c.User.Query().Where(user.Email("ada@example.com")).Only(ctx)
		require.NoError(t, err, "ada after the upserts")
		require.Equal(t, ada.ID, got.ID, "ada after the upserts: %v, want key %v", got, ada.ID)
		if n, err := got.QueryPosts().Count(ctx); assert.NoError(t, err, "ada's posts") {
			assert.Equal(t, 1, n, "ada's posts")
		}
		if p, err := c.Post.Get(ctx, post.ID); assert.NoError(t, err, "post after the upserts") {
			assert.Equal(t, ada.ID, p.AuthorID, "post after the upserts: %v, want author %v", p, ada.ID)
		}

		// Bulk: UpdateNewValues keeps every existing key.
		err = c.User.CreateBulk(c.User.Create().SetEmail("ada@example.com"), c.User.Create().SetEmail("edsger@example.com")).
			OnConflictColumns(user.FieldEmail).UpdateNewValues().Exec(ctx)
		require.NoError(t, err, "bulk upsert")
		if got, err := c.User.Query().Where(user.Email("ada@example.com")).Only(ctx); assert.NoError(t, err, "ada after the bulk upsert") {
			assert.Equal(t, ada.ID, got.ID, "ada after the bulk upsert: %v, want %v", got, ada.ID)
		}
		if n, err := c.User.Query().Where(user.Email("edsger@example.com")).Count(ctx); assert.NoError(t, err, "edsger after the bulk upsert") {
			assert.Equal(t, 1, n, "edsger after the bulk upsert")
		}
		// An upsert by key (the caller sets it, with the opt-in) updates
		// that row.
		err = c.User.Create().SetID(ada.ID).SetEmail("ada.l@example.com").OnConflictColumns(user.FieldID).UpdateNewValues().Exec(keepPresets)
		require.NoError(t, err, "upsert by key")
		if got, err := c.User.Get(ctx, ada.ID); assert.NoError(t, err, "upsert by key") {
			assert.Equal(t, "ada.l@example.com", got.Email, "upsert by key: %v", got)
		}
	})
}
