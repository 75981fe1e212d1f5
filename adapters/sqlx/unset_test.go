package oncesqlx_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

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
		if _, err := oncesqlx.NamedExec(ctx, e.x, `INSERT INTO users (id, email) VALUES (:id, :email)`, &u); err != nil {
			t.Fatal(err)
		}
		const insPost = `INSERT INTO posts (id, title, author_id, editor_id, reviewer_id, ref)
			VALUES (:id, :title, :author_id, :editor_id, :reviewer_id, :ref)`
		refused := func(what string, err error, field string) {
			t.Helper()
			if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), "oncesqlx: Post."+field+" ") {
				t.Errorf("%s: %v, want once.ErrInvalid naming Post.%s", what, err, field)
			}
		}

		p := Post{Title: "no author"}
		_, err := oncesqlx.NamedExec(ctx, e.x, insPost, &p)
		refused("zero foreign key", err, "AuthorID")
		if !p.ID.IsZero() || !p.Ref.IsZero() {
			t.Errorf("keys left behind: %+v", p)
		}
		var fromJSON Post
		if err := json.Unmarshal([]byte(`{"Title":"x","AuthorID":"`+u.ID.String()+`","EditorID":""}`), &fromJSON); err != nil {
			t.Fatal(err)
		}
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, &fromJSON)
		refused(`*T from JSON ""`, err, "EditorID")
		batch := []Post{{Title: "a", AuthorID: u.ID}, {Title: "b", AuthorID: u.ID, ReviewerID: sql.Null[at.UserID]{Valid: true}}}
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, batch)
		refused("batch, valid sql.Null of the zero ID", err, "ReviewerID")
		if !batch[0].ID.IsZero() {
			t.Errorf("batch: key %v left behind", batch[0].ID)
		}
		// A zero field the statement does not bind is no concern.
		ok := Post{Title: "fine", AuthorID: u.ID}
		if _, err := oncesqlx.NamedExec(ctx, e.x, insPost, &ok); err != nil {
			t.Fatal(err)
		}
		rename := Post{Base: ok.Base, Title: "renamed"}
		if _, err := oncesqlx.NamedExec(ctx, e.x, `UPDATE posts SET title = :title WHERE id = :id`, &rename); err != nil {
			t.Errorf("update binding no zero ID: %v", err)
		}

		// Plain database/sql and sqlx, in each driver.
		ins := e.x.Rebind(`INSERT INTO users (id, email) VALUES (?, ?)`)
		if _, err := e.x.ExecContext(ctx, ins, at.UserID{}, "x@example.com"); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("Exec with the zero ID: %v", err)
		}
		if _, err := db.SQL.ExecContext(ctx, ins, &at.UserID{}, "x@example.com"); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("database/sql Exec with a *T to the zero ID: %v", err)
		}
		if _, err := db.SQL.ExecContext(ctx, e.x.Rebind(`UPDATE posts SET editor_id = ? WHERE id = ?`), sql.Null[at.UserID]{Valid: true}, ok.ID); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("database/sql Exec with a valid sql.Null of the zero ID: %v", err)
		}
		var n int
		if err := e.x.GetContext(ctx, &n, e.x.Rebind(`SELECT count(*) FROM users WHERE id = ?`), at.UserID{}); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("query by the zero ID: %d, %v", n, err)
		}
		if _, _, err := sqlx.In(`SELECT id FROM users WHERE id = ? OR id IN (?)`, at.UserID{}, []at.UserID{u.ID}); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("sqlx.In with the zero ID: %v", err)
		}
		q, args, err := sqlx.In(`SELECT id FROM users WHERE id IN (?)`, []at.UserID{u.ID, {}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []at.UserID
		if err := e.x.SelectContext(ctx, &ids, e.x.Rebind(q), args...); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("sqlx.In with a []UserID holding the zero ID: %v, %v", ids, err)
		}
		if users, posts := at.Count(t, db, "users"), at.Count(t, db, "posts"); users != 1 || posts != 1 {
			t.Errorf("%d users, %d posts; want 1 and 1", users, posts)
		}
	})
}
