package oncesqlx_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type User struct {
	ID    at.UserID `db:"id"`
	Email string    `db:"email"`
}

type Base struct {
	ID at.PostID `db:"id"`
}

type Post struct {
	Base                           // the key comes from an embedded struct
	Title      string              `db:"title"`
	AuthorID   at.UserID           `db:"author_id"`
	EditorID   *at.UserID          `db:"editor_id"`
	ReviewerID sql.Null[at.UserID] `db:"reviewer_id"`
	Ref        at.URL64ID          `db:"ref" once:"auto"`
}

type env struct {
	db at.DB
	x  *sqlx.DB
}

func open(t *testing.T, db at.DB) *env {
	t.Helper()
	driver := map[idfield.Dialect]string{idfield.Postgres: "pgx", idfield.MySQL: "mysql", idfield.SQLite: "sqlite"}[db.Dialect]
	x := sqlx.NewDb(db.SQL, driver)
	colType := func(k once.Spec) string {
		t.Helper()
		typ, err := oncesqlx.ColumnType(x, k)
		require.NoError(t, err)
		return typ
	}
	uid := colType(at.UserID{})
	for _, ddl := range []string{
		`CREATE TABLE users (id ` + uid + ` PRIMARY KEY, email varchar(100) NOT NULL)`,
		`CREATE TABLE posts (id ` + colType(at.PostID{}) + ` PRIMARY KEY, title varchar(100) NOT NULL,
			author_id ` + uid + ` NOT NULL REFERENCES users (id), editor_id ` + uid + ` NULL REFERENCES users (id),
			reviewer_id ` + uid + ` NULL, ref ` + colType(at.URL64ID{}) + ` NOT NULL)`,
	} {
		_, err := x.Exec(ddl)
		require.NoError(t, err, "%s", ddl)
	}
	return &env{db: db, x: x}
}

func TestSchema(t *testing.T) {
	at.Each(t, func(t *testing.T, db at.DB) {
		open(t, db)
		for _, c := range []struct {
			table, col string
			o          once.Options
		}{
			{"users", "id", at.UserID{}.Options()},
			{"posts", "author_id", at.UserID{}.Options()},
			{"posts", "ref", at.URL64ID{}.Options()},
		} {
			got := at.Columns(t, db, c.table)[c.col]
			want := at.WantColumn(db.Dialect, c.o)
			assert.Equal(t, want.Type, got.Type, "%s.%s: type", c.table, c.col)
			assert.Equal(t, want.Collation, got.Collation, "%s.%s: collation", c.table, c.col)
		}
	})
}

func TestInsertAndQuery(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		const insUser = `INSERT INTO users (id, email) VALUES (:id, :email)`
		const insPost = `INSERT INTO posts (id, title, author_id, editor_id, reviewer_id, ref)
			VALUES (:id, :title, :author_id, :editor_id, :reviewer_id, :ref)`

		// Fill, then NamedExec: the key is there before the statement.
		u := User{Email: "ada@example.com"}
		require.NoError(t, oncesqlx.Fill(&u), "Fill")
		require.False(t, u.ID.IsZero(), "Fill: ID")
		_, err := e.x.NamedExecContext(ctx, insUser, &u)
		require.NoError(t, err)

		// Batch insert with the helper; one ID set by the caller is kept.
		kept := at.UserID(once.FromUint64(77))
		more := []User{{Email: "grace@example.com"}, {Email: "edsger@example.com", ID: kept}}
		_, err = oncesqlx.NamedExec(ctx, e.x, insUser, more)
		require.NoError(t, err)
		require.False(t, more[0].ID.IsZero(), "batch: first ID")
		require.Equal(t, kept, more[1].ID, "batch: the ID set by the caller")

		// Nullable foreign keys; the key from an embedded struct; a tagged
		// non-key field.
		posts := []*Post{
			{Title: "one", AuthorID: u.ID},
			{Title: "two", AuthorID: u.ID, EditorID: &more[0].ID, ReviewerID: sql.Null[at.UserID]{V: kept, Valid: true}},
		}
		_, err = oncesqlx.NamedExec(ctx, e.x, insPost, posts)
		require.NoError(t, err)
		for _, p := range posts {
			require.False(t, p.ID.IsZero() || p.Ref.IsZero(), "post not filled: %+v", p)
		}

		// Get by a masked, prefixed ID parsed from text.
		id, err := once.ParseAs[at.UserID](u.ID.String())
		require.NoError(t, err)
		var got User
		require.NoError(t, e.x.GetContext(ctx, &got, e.x.Rebind(`SELECT id, email FROM users WHERE id = ?`), id), "Get")
		require.Equal(t, u, got, "Get")
		var ids []at.UserID
		if assert.NoError(t, e.x.SelectContext(ctx, &ids, `SELECT id FROM users ORDER BY email`), "Select IDs") && assert.Len(t, ids, 3, "Select IDs") {
			assert.Equal(t, u.ID, ids[0], "Select IDs: first by email")
		}

		// sqlx.In with a slice of IDs.
		q, args, err := sqlx.In(`SELECT id, email FROM users WHERE id IN (?) ORDER BY email`, []at.UserID{u.ID, kept})
		require.NoError(t, err)
		var two []User
		if assert.NoError(t, e.x.SelectContext(ctx, &two, e.x.Rebind(q), args...), "sqlx.In") && assert.Len(t, two, 2, "sqlx.In") {
			assert.Equal(t, u, two[0], "sqlx.In: first row")
			assert.Equal(t, kept, two[1].ID, "sqlx.In: second row")
		}

		var back []Post
		require.NoError(t, e.x.SelectContext(ctx, &back, `SELECT id, title, author_id, editor_id, reviewer_id, ref FROM posts ORDER BY title`))
		if assert.Len(t, back, 2, "posts read back") {
			assert.Equal(t, posts[0].ID, back[0].ID, "first post read back")
			assert.Nil(t, back[0].EditorID, "first post read back: EditorID")
			assert.False(t, back[0].ReviewerID.Valid, "first post read back: ReviewerID %v, want NULL", back[0].ReviewerID)
			assert.Equal(t, posts[0].Ref, back[0].Ref, "first post read back: Ref")
			if assert.NotNil(t, back[1].EditorID, "second post read back: EditorID") {
				assert.Equal(t, more[0].ID, *back[1].EditorID, "second post read back: EditorID")
			}
			assert.Equal(t, posts[1].ReviewerID, back[1].ReviewerID, "second post read back: ReviewerID")
		}
		var raw int64
		if assert.NoError(t, e.x.Get(&raw, e.x.Rebind(`SELECT id FROM users WHERE email = ?`), u.Email), "stored id") {
			assert.Equal(t, u.ID.Int64(), raw, "stored id")
		}
	})
}

func TestNoLease(t *testing.T) {
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		for _, name := range []string{"never activated", "disabled"} {
			if name == "never activated" {
				at.Unleased(t)
			} else {
				at.Leased(t).Disable()
			}
			us := []User{{Email: "a@example.com", ID: at.UserID(once.FromUint64(9))}, {Email: "b@example.com"}}
			_, err := oncesqlx.NamedExec(ctx, e.x, `INSERT INTO users (id, email) VALUES (:id, :email)`, us)
			if assert.ErrorIs(t, err, nonce.ErrDisabled, "%s: error", name) {
				assert.Contains(t, err.Error(), "oncesqlx: new ID for User.ID", "%s: error", name)
			}
			assert.Equal(t, uint64(9), us[0].ID.Uint64(), "%s: the caller's ID changed", name)
			assert.True(t, us[1].ID.IsZero(), "%s: ID changed: %v", name, us[1].ID)
			p := Post{Title: "x"}
			assert.ErrorIs(t, oncesqlx.Fill(&p), nonce.ErrDisabled, "%s: Fill", name)
			assert.True(t, p.ID.IsZero() && p.Ref.IsZero(), "%s: Fill left %+v", name, p)
			assert.Zero(t, at.Count(t, db, "users"), "%s: rows written", name)
		}
	})
}

func TestFillErrors(t *testing.T) {
	at.Leased(t)
	assert.Error(t, oncesqlx.Fill(User{}), "Fill of a struct value: no error")
	assert.Error(t, oncesqlx.Fill((*User)(nil)), "Fill(nil): no error")
	assert.Error(t, oncesqlx.Fill(&[]int{1}), "Fill(&[]int): no error")
	us := []*User{nil, {}}
	if assert.NoError(t, oncesqlx.Fill(us), "Fill with a nil element") {
		assert.False(t, us[1].ID.IsZero(), "Fill with a nil element: %+v", us[1])
	}
}
