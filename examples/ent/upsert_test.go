package main

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

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
		if err != nil {
			t.Fatal(err)
		}
		post, err := c.Post.Create().SetTitle("Notes").SetAuthor(ada).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		same := func() *ent.UserUpsertOne {
			return c.User.Create().SetEmail("ada@example.com").OnConflictColumns(user.FieldEmail).UpdateNewValues()
		}
		if db.dialect == "mysql" {
			if _, err := same().ID(ctx); err == nil || !strings.Contains(err.Error(), "UserUpsertOne.ID is not supported by MySQL driver") {
				t.Errorf("UpsertOne.ID on MySQL: %v, want ent's error naming the call", err)
			}
			if err := same().Exec(ctx); err != nil {
				t.Errorf("UpsertOne.Exec on MySQL: %v", err)
			}
		} else {
			id, err := same().ID(ctx)
			if err != nil || id != ada.ID {
				t.Errorf("UpdateNewValues: %v (%v), want the existing %v", id, err, ada.ID)
			}
			fresh, err := c.User.Create().SetEmail("grace@example.com").OnConflictColumns(user.FieldEmail).UpdateNewValues().ID(ctx)
			if err != nil || fresh.IsZero() || fresh == ada.ID {
				t.Errorf("upsert of a new row: %v (%v)", fresh, err)
			}
			ignored, err := c.User.Create().SetEmail("ada@example.com").OnConflictColumns(user.FieldEmail).Ignore().ID(ctx)
			if err != nil || ignored != ada.ID {
				t.Errorf("Ignore: %v (%v), want the existing %v", ignored, err, ada.ID)
			}
			skipped, err := c.User.Create().SetEmail("ada@example.com").OnConflictColumns(user.FieldEmail).DoNothing().ID(ctx)
			if !errors.Is(err, sql.ErrNoRows) || !skipped.IsZero() {
				t.Errorf("DoNothing on an existing row: %v (%v), want the zero key and sql.ErrNoRows", skipped, err)
			}
		}
		// The key of the existing row is kept, and its posts still point
		// to it.
		got, err := c.User.Query().Where(user.Email("ada@example.com")).Only(ctx)
		if err != nil || got.ID != ada.ID {
			t.Fatalf("ada after the upserts: %v (%v), want key %v", got, err, ada.ID)
		}
		if n, err := got.QueryPosts().Count(ctx); err != nil || n != 1 {
			t.Errorf("ada's posts: %d (%v)", n, err)
		}
		if p, err := c.Post.Get(ctx, post.ID); err != nil || p.AuthorID != ada.ID {
			t.Errorf("post after the upserts: %v (%v)", p, err)
		}

		// Bulk: UpdateNewValues keeps every existing key.
		err = c.User.CreateBulk(c.User.Create().SetEmail("ada@example.com"), c.User.Create().SetEmail("edsger@example.com")).
			OnConflictColumns(user.FieldEmail).UpdateNewValues().Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.User.Query().Where(user.Email("ada@example.com")).Only(ctx); err != nil || got.ID != ada.ID {
			t.Errorf("ada after the bulk upsert: %v (%v), want %v", got, err, ada.ID)
		}
		if n, err := c.User.Query().Where(user.Email("edsger@example.com")).Count(ctx); err != nil || n != 1 {
			t.Errorf("edsger after the bulk upsert: %d (%v)", n, err)
		}
		// An upsert by key (the caller sets it) updates that row.
		err = c.User.Create().SetID(ada.ID).SetEmail("ada.l@example.com").OnConflictColumns(user.FieldID).UpdateNewValues().Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.User.Get(ctx, ada.ID); err != nil || got.Email != "ada.l@example.com" {
			t.Errorf("upsert by key: %v (%v)", got, err)
		}
	})
}
