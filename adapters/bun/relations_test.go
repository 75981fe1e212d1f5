package oncebun_test

import (
	"context"
	"database/sql"
	"testing"

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
		if _, err := e.b.NewInsert().Model(&users).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		ada, grace := users[0], users[1]
		posts := []Post{
			{Title: "one", AuthorID: ada.ID, EditorID: &grace.ID, ReviewerID: sql.Null[at.UserID]{V: grace.ID, Valid: true}, CheckerID: ada.ID},
			{Title: "two", AuthorID: ada.ID},
			{Title: "three", AuthorID: grace.ID, EditorID: &grace.ID},
		}
		if _, err := e.b.NewInsert().Model(&posts).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tags := []Tag{{Name: "go"}, {Name: "sql"}}
		if _, err := e.b.NewInsert().Model(&tags).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		links := []PostTag{{PostID: posts[0].ID, TagID: tags[0].ID}, {PostID: posts[0].ID, TagID: tags[1].ID}, {PostID: posts[2].ID, TagID: tags[0].ID}}
		if _, err := e.b.NewInsert().Model(&links).Exec(ctx); err != nil {
			t.Fatal(err)
		}

		var us []User
		if err := e.b.NewSelect().Model(&us).Relation("Posts").Relation("Edited").Order("email").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(us) != 2 || len(us[0].Posts) != 2 || len(us[0].Edited) != 0 || len(us[1].Posts) != 1 || len(us[1].Edited) != 2 {
			t.Errorf("has-many through typed and *T foreign keys: %+v", us)
		}
		var ps []Post
		if err := e.b.NewSelect().Model(&ps).Relation("Author").Relation("Editor").Relation("Reviewer").Relation("Checker").
			Relation("Tags").OrderExpr("?TableAlias.title").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		byTitle := map[string]Post{}
		for _, p := range ps {
			byTitle[p.Title] = p
		}
		one, two := byTitle["one"], byTitle["two"]
		if one.Author == nil || one.Author.ID != ada.ID || one.Editor == nil || one.Editor.ID != grace.ID ||
			one.Reviewer == nil || one.Reviewer.ID != grace.ID || one.Checker == nil || one.Checker.ID != ada.ID || len(one.Tags) != 2 {
			t.Errorf("belongs-to through typed, *T, sql.Null and nullzero keys, m2m: %+v", one)
		}
		if two.Editor != nil || two.Reviewer != nil || two.Checker != nil || two.EditorID != nil || !two.CheckerID.IsZero() || len(two.Tags) != 0 {
			t.Errorf("NULL foreign keys: %+v", two)
		}
		var tg []Tag
		if err := e.b.NewSelect().Model(&tg).Relation("Posts").Order("name").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(tg) != 2 || len(tg[0].Posts) != 2 || len(tg[1].Posts) != 1 || tg[1].Posts[0].ID != posts[0].ID {
			t.Errorf("m2m from the other side: %+v", tg)
		}
		// A key type as a query value: IN with a []UserID.
		if n, err := e.b.NewSelect().Model((*Post)(nil)).Where("author_id IN (?)", bun.List([]at.UserID{ada.ID, grace.ID})).Count(ctx); err != nil || n != 3 {
			t.Errorf("IN with a []UserID: %d (%v)", n, err)
		}
	})
}
