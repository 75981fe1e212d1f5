package oncebun_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		_, err := e.b.NewInsert().Model(&u).Exec(ctx)
		require.NoError(t, err)
		e.log.take()
		refused := func(what string, err error, field string) {
			t.Helper()
			if assert.ErrorIs(t, err, once.ErrInvalid, what) {
				assert.Contains(t, err.Error(), "oncebun: Post."+field+" ", "%s: the error names Post.%s", what, field)
			}
			assert.Empty(t, e.log.take(), "%s: ran SQL", what)
		}

		p := Post{Title: "no author"}
		_, err = e.b.NewInsert().Model(&p).Exec(ctx)
		refused("insert, zero foreign key", err, "AuthorID")
		assert.True(t, p.ID.IsZero(), "key %v left behind", p.ID)

		var fromJSON Post
		require.NoError(t, json.Unmarshal([]byte(`{"Title":"x","AuthorID":"`+u.ID.String()+`","EditorID":""}`), &fromJSON))
		require.NotNil(t, fromJSON.EditorID, `"" decoded into nil, want a pointer to the zero ID`)
		require.True(t, fromJSON.EditorID.IsZero(), `"" decoded into %v, want a pointer to the zero ID`, fromJSON.EditorID)
		_, err = e.b.NewInsert().Model(&fromJSON).Exec(ctx)
		refused(`insert, *T from JSON ""`, err, "EditorID")

		bulk := []Post{{Title: "a", AuthorID: u.ID}, {Title: "b", ReviewerID: sql.Null[at.UserID]{Valid: true}, AuthorID: u.ID}}
		_, err = e.b.NewInsert().Model(&bulk).Exec(ctx)
		refused("bulk insert, valid sql.Null of the zero ID", err, "ReviewerID")
		assert.True(t, bulk[0].ID.IsZero(), "bulk: key %v left behind", bulk[0].ID)

		// nullzero writes NULL; a nil *T and an invalid sql.Null[T] are NULL.
		ok := Post{Title: "fine", AuthorID: u.ID}
		_, err = e.b.NewInsert().Model(&ok).Exec(ctx)
		require.NoError(t, err, "insert with NULL foreign keys")
		e.log.take()

		bad := ok
		bad.AuthorID = at.UserID{}
		_, err = e.b.NewUpdate().Model(&bad).WherePK().Exec(ctx)
		refused("update, zero foreign key", err, "AuthorID")
		bad.Title = "renamed"
		_, err = e.b.NewUpdate().Model(&bad).Column("title").WherePK().Exec(ctx)
		assert.NoError(t, err, "update of another column")
		_, err = e.b.NewUpdate().Model(&bad).OmitZero().WherePK().Exec(ctx)
		assert.NoError(t, err, "update with OmitZero")
		e.log.take()
		_, err = e.b.NewUpdate().Model(&ok).Column("title").Set("author_id = ?", at.UserID{}).WherePK().Exec(ctx)
		if assert.ErrorIs(t, err, once.ErrInvalid, "update SET with the zero ID") {
			assert.Contains(t, err.Error(), "oncebun: Post: SET", "update SET with the zero ID")
		}
		var back Post
		if assert.NoError(t, e.b.NewSelect().Model(&back).Where("?TableAlias.id = ?", ok.ID).Scan(ctx), "row after the refused updates") {
			assert.Equal(t, u.ID, back.AuthorID, "row after the refused updates: AuthorID")
			assert.Equal(t, "renamed", back.Title, "row after the refused updates: Title")
		}
	})
}
