package oncegorm_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/once"
)

// TestUnsetID: a create or update that would write the zero ID fails
// before any SQL runs with an error matching once.ErrInvalid that names
// the model and field. A *T holding the zero ID, which is what
// encoding/json makes of "", is refused the same way: nil (JSON null, or
// the field left out) is NULL.
func TestUnsetID(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		u := User{Email: "ada@example.com"}
		if err := e.g.Create(&u).Error; err != nil {
			t.Fatal(err)
		}
		e.log.take()
		refused := func(what string, err error, field string) {
			t.Helper()
			if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), "oncegorm: Post."+field+" ") {
				t.Errorf("%s: %v, want once.ErrInvalid naming Post.%s", what, err, field)
			}
			for _, s := range e.log.take() {
				if u := strings.ToUpper(s); strings.HasPrefix(u, "INSERT") || strings.HasPrefix(u, "UPDATE") {
					t.Errorf("%s: ran %s", what, s)
				}
			}
		}

		p := Post{Title: "no author"}
		refused("create, zero foreign key", e.g.Create(&p).Error, "AuthorID")
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
		refused(`create, *T from JSON ""`, e.g.Create(&fromJSON).Error, "EditorID")

		batch := []Post{{Title: "a", AuthorID: u.ID}, {Title: "b", AuthorID: u.ID, ReviewerID: sql.Null[at.UserID]{Valid: true}}}
		refused("batch, valid sql.Null of the zero ID", e.g.Create(&batch).Error, "ReviewerID")
		if !batch[0].ID.IsZero() || !batch[1].ID.IsZero() {
			t.Errorf("batch: keys left behind: %v %v", batch[0].ID, batch[1].ID)
		}

		ok := Post{Title: "fine", AuthorID: u.ID}
		if err := e.g.Create(&ok).Error; err != nil {
			t.Fatalf("create with NULL foreign keys: %v", err)
		}
		e.log.take()
		bad := ok
		bad.AuthorID = at.UserID{}
		refused("Save, zero foreign key", e.g.Save(&bad).Error, "AuthorID")
		refused("Update of a column to the zero ID", e.g.Model(&ok).Update("author_id", at.UserID{}).Error, "AuthorID")
		refused("Updates with a map", e.g.Model(&ok).Updates(map[string]any{"editor_id": &at.UserID{}}).Error, "EditorID")
		refused("Updates with a struct, *T to the zero ID", e.g.Model(&ok).Updates(Post{EditorID: &at.UserID{}}).Error, "EditorID")
		refused("Select of a zero field", e.g.Model(&ok).Select("author_id").Updates(Post{Title: "x"}).Error, "AuthorID")
		// Zero fields GORM does not write are fine.
		if err := e.g.Model(&ok).Updates(Post{Title: "renamed"}).Error; err != nil {
			t.Errorf("Updates of another field: %v", err)
		}
		var back Post
		if err := e.g.First(&back, "id = ?", ok.ID).Error; err != nil || back.AuthorID != u.ID || back.EditorID != nil || back.Title != "renamed" {
			t.Errorf("row after the refused updates: %+v (%v)", back, err)
		}
	})
}
