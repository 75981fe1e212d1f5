package oncebun_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	at "github.com/once-go/once/adapters/internal/adaptertest"
)

// TestRelations: bun relations through once keys, on each database:
// has-many and belongs-to through a typed, a *T (bun #674: a has-many
// through a *string failed with "does not have base model"), a
// sql.Null[T] and a nullzero foreign key, NULL foreign keys, and
// many-to-many with text keys from both sides.
func TestRelations(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		users := []User{{Email: "ada@example.com"}, {Email: "grace@example.com"}}
		_, err := e.b.NewInsert().Model(&users).Exec(ctx)
		require.NoError(t, err)
		ada, grace := users[0], users[1]
		posts := []Post{
			{Title: "one", AuthorID: ada.ID, EditorID: &grace.ID, ReviewerID: sql.Null[at.UserID]{V: grace.ID, Valid: true}, CheckerID: ada.ID},
			{Title: "two", AuthorID: ada.ID},
			{Title: "three", AuthorID: grace.ID, EditorID: &grace.ID},
		}
		_, err = e.b.NewInsert().Model(&posts).Exec(ctx)
		require.NoError(t, err)
		tags := []Tag{{Name: "go"}, {Name: "sql"}}
		_, err = e.b.NewInsert().Model(&tags).Exec(ctx)
		require.NoError(t, err)
		links := []PostTag{{PostID: posts[0].ID, TagID: tags[0].ID}, {PostID: posts[0].ID, TagID: tags[1].ID}, {PostID: posts[2].ID, TagID: tags[0].ID}}
		_, err = e.b.NewInsert().Model(&links).Exec(ctx)
		require.NoError(t, err)

		var us []User
		require.NoError(t, e.b.NewSelect().Model(&us).Relation("Posts").Relation("Edited").Order("email").Scan(ctx))
		if assert.Len(t, us, 2, "has-many through typed and *T foreign keys") {
			assert.Len(t, us[0].Posts, 2, "has-many through the typed foreign key: %s", us[0].Email)
			assert.Empty(t, us[0].Edited, "has-many through the *T foreign key: %s", us[0].Email)
			assert.Len(t, us[1].Posts, 1, "has-many through the typed foreign key: %s", us[1].Email)
			assert.Len(t, us[1].Edited, 2, "has-many through the *T foreign key: %s", us[1].Email)
		}
		var ps []Post
		require.NoError(t, e.b.NewSelect().Model(&ps).Relation("Author").Relation("Editor").Relation("Reviewer").Relation("Checker").
			Relation("Tags").OrderExpr("?TableAlias.title").Scan(ctx))
		byTitle := map[string]Post{}
		for _, p := range ps {
			byTitle[p.Title] = p
		}
		one, two := byTitle["one"], byTitle["two"]
		for _, r := range []struct {
			what string
			rel  *User
			want at.UserID
		}{{"typed key: Author", one.Author, ada.ID}, {"*T key: Editor", one.Editor, grace.ID}, {"sql.Null key: Reviewer", one.Reviewer, grace.ID}, {"nullzero key: Checker", one.Checker, ada.ID}} {
			if assert.NotNil(t, r.rel, "belongs-to through the %s", r.what) {
				assert.Equal(t, r.want, r.rel.ID, "belongs-to through the %s", r.what)
			}
		}
		assert.Len(t, one.Tags, 2, "m2m")
		assert.Nil(t, two.Editor, "NULL foreign keys: Editor")
		assert.Nil(t, two.Reviewer, "NULL foreign keys: Reviewer")
		assert.Nil(t, two.Checker, "NULL foreign keys: Checker")
		assert.Nil(t, two.EditorID, "NULL foreign keys: EditorID")
		assert.True(t, two.CheckerID.IsZero(), "NULL foreign keys: CheckerID %v", two.CheckerID)
		assert.Empty(t, two.Tags, "NULL foreign keys: Tags")
		var tg []Tag
		require.NoError(t, e.b.NewSelect().Model(&tg).Relation("Posts").Order("name").Scan(ctx))
		if assert.Len(t, tg, 2, "m2m from the other side") {
			assert.Len(t, tg[0].Posts, 2, "m2m from the other side: %s", tg[0].Name)
			if assert.Len(t, tg[1].Posts, 1, "m2m from the other side: %s", tg[1].Name) {
				assert.Equal(t, posts[0].ID, tg[1].Posts[0].ID, "m2m from the other side: %s", tg[1].Name)
			}
		}
		// A key type as a query value: IN with a []UserID.
		if n, err := e.b.NewSelect().Model((*Post)(nil)).Where("author_id IN (?)", bun.List([]at.UserID{ada.ID, grace.ID})).Count(ctx); assert.NoError(t, err, "IN with a []UserID") {
			assert.Equal(t, int64(3), n, "IN with a []UserID")
		}
	})
}
