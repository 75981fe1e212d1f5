package oncegorm_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		require.NoError(t, e.g.Create(&u).Error)
		e.log.take()
		refused := func(what string, err error, field string) {
			t.Helper()
			if assert.ErrorIs(t, err, once.ErrInvalid, what) {
				assert.Contains(t, err.Error(), "oncegorm: Post."+field+" ", "%s: the error names Post.%s", what, field)
			}
			for _, s := range e.log.take() {
				u := strings.ToUpper(s)
				assert.False(t, strings.HasPrefix(u, "INSERT") || strings.HasPrefix(u, "UPDATE"), "%s: ran %s", what, s)
			}
		}

		p := Post{Title: "no author"}
		refused("create, zero foreign key", e.g.Create(&p).Error, "AuthorID")
		assert.True(t, p.ID.IsZero(), "key %v left behind", p.ID)

		var fromJSON Post
		require.NoError(t, json.Unmarshal([]byte(`{"Title":"x","AuthorID":"`+u.ID.String()+`","EditorID":""}`), &fromJSON))
		require.NotNil(t, fromJSON.EditorID, `"" decoded into nil, want a pointer to the zero ID`)
		require.True(t, fromJSON.EditorID.IsZero(), `"" decoded into %v, want a pointer to the zero ID`, fromJSON.EditorID)
		refused(`create, *T from JSON ""`, e.g.Create(&fromJSON).Error, "EditorID")

		batch := []Post{{Title: "a", AuthorID: u.ID}, {Title: "b", AuthorID: u.ID, ReviewerID: sql.Null[at.UserID]{Valid: true}}}
		refused("batch, valid sql.Null of the zero ID", e.g.Create(&batch).Error, "ReviewerID")
		assert.True(t, batch[0].ID.IsZero() && batch[1].ID.IsZero(), "batch: keys left behind: %v %v", batch[0].ID, batch[1].ID)

		ok := Post{Title: "fine", AuthorID: u.ID}
		require.NoError(t, e.g.Create(&ok).Error, "create with NULL foreign keys")
		e.log.take()
		bad := ok
		bad.AuthorID = at.UserID{}
		refused("Save, zero foreign key", e.g.Save(&bad).Error, "AuthorID")
		refused("Update of a column to the zero ID", e.g.Model(&ok).Update("author_id", at.UserID{}).Error, "AuthorID")
		refused("Updates with a map", e.g.Model(&ok).Updates(map[string]any{"editor_id": &at.UserID{}}).Error, "EditorID")
		refused("Updates with a struct, *T to the zero ID", e.g.Model(&ok).Updates(Post{EditorID: &at.UserID{}}).Error, "EditorID")
		refused("Select of a zero field", e.g.Model(&ok).Select("author_id").Updates(Post{Title: "x"}).Error, "AuthorID")
		// Zero fields GORM does not write are fine.
		assert.NoError(t, e.g.Model(&ok).Updates(Post{Title: "renamed"}).Error, "Updates of another field")
		var back Post
		if assert.NoError(t, e.g.First(&back, "id = ?", ok.ID).Error, "row after the refused updates") {
			assert.Equal(t, u.ID, back.AuthorID, "row after the refused updates: AuthorID")
			assert.Nil(t, back.EditorID, "row after the refused updates: EditorID")
			assert.Equal(t, "renamed", back.Title, "row after the refused updates: Title")
		}
	})
}
