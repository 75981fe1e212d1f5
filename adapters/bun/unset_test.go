package oncebun_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/once"
)

// TestUnsetID: an insert or update that would write the zero ID fails
// before any SQL runs with an error matching once.ErrInvalid that names
// the model and field (bun would write the Valuer's error into the SQL
// text and the database would answer with a syntax error). A *T holding
// the zero ID, which is what encoding/json makes of "", is refused the
// same way: nil (JSON null, or the field left out) is NULL.
func TestUnsetID(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		u := User{Email: "ada@example.com"}
		if _, err := e.b.NewInsert().Model(&u).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		e.log.take()
		refused := func(what string, err error, field string) {
			t.Helper()
			if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), "oncebun: Post."+field+" ") {
				t.Errorf("%s: %v, want once.ErrInvalid naming Post.%s", what, err, field)
			}
			if s := e.log.take(); len(s) != 0 {
				t.Errorf("%s: ran %q", what, s)
			}
		}

		p := Post{Title: "no author"}
		_, err := e.b.NewInsert().Model(&p).Exec(ctx)
		refused("insert, zero foreign key", err, "AuthorID")
		if !p.ID.IsZero() {
			t.Errorf("key %v left behind", p.ID)
		}

		var fromJSON Post
		if err := json.Unmarshal([]byte(`{"Title":"x","AuthorID":"`+u.ID.String()+`","EditorID":""}`), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if fromJSON.EditorID == nil || !fromJSON.EditorID.IsZero() {
			t.Fatalf(`"" decoded into %v, want a pointer to the zero ID`, fromJSON.EditorID)
		}
		_, err = e.b.NewInsert().Model(&fromJSON).Exec(ctx)
		refused(`insert, *T from JSON ""`, err, "EditorID")

		bulk := []Post{{Title: "a", AuthorID: u.ID}, {Title: "b", ReviewerID: sql.Null[at.UserID]{Valid: true}, AuthorID: u.ID}}
		_, err = e.b.NewInsert().Model(&bulk).Exec(ctx)
		refused("bulk insert, valid sql.Null of the zero ID", err, "ReviewerID")
		if !bulk[0].ID.IsZero() {
			t.Errorf("bulk: key %v left behind", bulk[0].ID)
		}

		// nullzero writes NULL; a nil *T and an invalid sql.Null[T] are NULL.
		ok := Post{Title: "fine", AuthorID: u.ID}
		if _, err := e.b.NewInsert().Model(&ok).Exec(ctx); err != nil {
			t.Fatalf("insert with NULL foreign keys: %v", err)
		}
		e.log.take()

		bad := ok
		bad.AuthorID = at.UserID{}
		_, err = e.b.NewUpdate().Model(&bad).WherePK().Exec(ctx)
		refused("update, zero foreign key", err, "AuthorID")
		bad.Title = "renamed"
		if _, err := e.b.NewUpdate().Model(&bad).Column("title").WherePK().Exec(ctx); err != nil {
			t.Errorf("update of another column: %v", err)
		}
		if _, err := e.b.NewUpdate().Model(&bad).OmitZero().WherePK().Exec(ctx); err != nil {
			t.Errorf("update with OmitZero: %v", err)
		}
		e.log.take()
		_, err = e.b.NewUpdate().Model(&ok).Column("title").Set("author_id = ?", at.UserID{}).WherePK().Exec(ctx)
		if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), "oncebun: Post: SET") {
			t.Errorf("update SET with the zero ID: %v", err)
		}
		var back Post
		if err := e.b.NewSelect().Model(&back).Where("?TableAlias.id = ?", ok.ID).Scan(ctx); err != nil || back.AuthorID != u.ID || back.Title != "renamed" {
			t.Errorf("row after the refused updates: %+v (%v)", back, err)
		}
	})
}
