package oncesqlx_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/once"
)

// TestUnsetID: NamedExec refuses a statement that would write the zero ID
// before it runs, with an error matching once.ErrInvalid that names the
// field; through plain database/sql (sqlx's Exec, Query and In) the ID's
// Value fails the same way in each driver, before the statement reaches
// the database. A *T holding the zero ID (JSON "") is refused too; nil is
// NULL.
func TestUnsetID(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		u := User{Email: "ada@example.com"}
		_, err := oncesqlx.NamedExec(ctx, e.x, `INSERT INTO users (id, email) VALUES (:id, :email)`, &u)
		require.NoError(t, err)
		const insPost = `INSERT INTO posts (id, title, author_id, editor_id, reviewer_id, ref)
			VALUES (:id, :title, :author_id, :editor_id, :reviewer_id, :ref)`
		refused := func(what string, err error, field string) {
			t.Helper()
			if assert.ErrorIs(t, err, once.ErrInvalid, what) {
				assert.Contains(t, err.Error(), "oncesqlx: Post."+field+" ", "%s: the error names Post.%s", what, field)
			}
		}

		p := Post{Title: "no author"}
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, &p)
		refused("zero foreign key", err, "AuthorID")
		assert.True(t, p.ID.IsZero() && p.Ref.IsZero(), "keys left behind: %+v", p)
		var fromJSON Post
		require.NoError(t, json.Unmarshal([]byte(`{"Title":"x","AuthorID":"`+u.ID.String()+`","EditorID":""}`), &fromJSON))
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, &fromJSON)
		refused(`*T from JSON ""`, err, "EditorID")
		batch := []Post{{Title: "a", AuthorID: u.ID}, {Title: "b", AuthorID: u.ID, ReviewerID: sql.Null[at.UserID]{Valid: true}}}
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, batch)
		refused("batch, valid sql.Null of the zero ID", err, "ReviewerID")
		assert.True(t, batch[0].ID.IsZero(), "batch: key %v left behind", batch[0].ID)
		// A zero field the statement does not bind is no concern.
		ok := Post{Title: "fine", AuthorID: u.ID}
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, &ok)
		require.NoError(t, err)
		rename := Post{Base: ok.Base, Title: "renamed"}
		_, err = oncesqlx.NamedExec(ctx, e.x, `UPDATE posts SET title = :title WHERE id = :id`, &rename)
		assert.NoError(t, err, "update binding no zero ID")

		// Plain database/sql and sqlx, in each driver.
		ins := e.x.Rebind(`INSERT INTO users (id, email) VALUES (?, ?)`)
		_, err = e.x.ExecContext(ctx, ins, at.UserID{}, "x@example.com")
		assert.ErrorIs(t, err, once.ErrInvalid, "Exec with the zero ID")
		_, err = db.SQL.ExecContext(ctx, ins, &at.UserID{}, "x@example.com")
		assert.ErrorIs(t, err, once.ErrInvalid, "database/sql Exec with a *T to the zero ID")
		_, err = db.SQL.ExecContext(ctx, e.x.Rebind(`UPDATE posts SET editor_id = ? WHERE id = ?`), sql.Null[at.UserID]{Valid: true}, ok.ID)
		assert.ErrorIs(t, err, once.ErrInvalid, "database/sql Exec with a valid sql.Null of the zero ID")
		var n int
		assert.ErrorIs(t, e.x.GetContext(ctx, &n, e.x.Rebind(`SELECT count(*) FROM users WHERE id = ?`), at.UserID{}), once.ErrInvalid, "query by the zero ID: %d", n)
		_, _, err = sqlx.In(`SELECT id FROM users WHERE id = ? OR id IN (?)`, at.UserID{}, []at.UserID{u.ID})
		assert.ErrorIs(t, err, once.ErrInvalid, "sqlx.In with the zero ID")
		q, args, err := sqlx.In(`SELECT id FROM users WHERE id IN (?)`, []at.UserID{u.ID, {}})
		require.NoError(t, err)
		var ids []at.UserID
		assert.ErrorIs(t, e.x.SelectContext(ctx, &ids, e.x.Rebind(q), args...), once.ErrInvalid, "sqlx.In with a []UserID holding the zero ID: %v", ids)
		assert.Equal(t, 1, at.Count(t, db, "users"), "users")
		assert.Equal(t, 1, at.Count(t, db, "posts"), "posts")
	})
}
