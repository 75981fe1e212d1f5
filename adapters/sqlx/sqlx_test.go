package oncesqlx_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

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
	colType := func(k once.Kind) string {
		t.Helper()
		typ, err := oncesqlx.ColumnType(x, k)
		if err != nil {
			t.Fatal(err)
		}
		return typ
	}
	uid := colType(at.UserID{})
	for _, ddl := range []string{
		`CREATE TABLE users (id ` + uid + ` PRIMARY KEY, email varchar(100) NOT NULL)`,
		`CREATE TABLE posts (id ` + colType(at.PostID{}) + ` PRIMARY KEY, title varchar(100) NOT NULL,
			author_id ` + uid + ` NOT NULL REFERENCES users (id), editor_id ` + uid + ` NULL REFERENCES users (id),
			reviewer_id ` + uid + ` NULL, ref ` + colType(at.URL64ID{}) + ` NOT NULL)`,
	} {
		if _, err := x.Exec(ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
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
			if want := at.WantColumn(db.Dialect, c.o); got.Type != want.Type || got.Collation != want.Collation {
				t.Errorf("%s.%s: %+v, want %+v", c.table, c.col, got, want)
			}
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
		if err := oncesqlx.Fill(&u); err != nil || u.ID.IsZero() {
			t.Fatalf("Fill: %v %v", u.ID, err)
		}
		if _, err := e.x.NamedExecContext(ctx, insUser, &u); err != nil {
			t.Fatal(err)
		}

		// Batch insert with the helper; one ID set by the caller is kept.
		kept := at.UserID(once.FromUint64(77))
		more := []User{{Email: "grace@example.com"}, {Email: "edsger@example.com", ID: kept}}
		if _, err := oncesqlx.NamedExec(ctx, e.x, insUser, more); err != nil {
			t.Fatal(err)
		}
		if more[0].ID.IsZero() || more[1].ID != kept {
			t.Fatalf("batch IDs %v %v", more[0].ID, more[1].ID)
		}

		// Nullable foreign keys; the key from an embedded struct; a tagged
		// non-key field.
		posts := []*Post{
			{Title: "one", AuthorID: u.ID},
			{Title: "two", AuthorID: u.ID, EditorID: &more[0].ID, ReviewerID: sql.Null[at.UserID]{V: kept, Valid: true}},
		}
		if _, err := oncesqlx.NamedExec(ctx, e.x, insPost, posts); err != nil {
			t.Fatal(err)
		}
		for _, p := range posts {
			if p.ID.IsZero() || p.Ref.IsZero() {
				t.Fatalf("post not filled: %+v", p)
			}
		}

		// Get by a masked, prefixed ID parsed from text.
		id, err := once.ParseAs[at.UserID](u.ID.String())
		if err != nil {
			t.Fatal(err)
		}
		var got User
		if err := e.x.GetContext(ctx, &got, e.x.Rebind(`SELECT id, email FROM users WHERE id = ?`), id); err != nil || got != u {
			t.Fatalf("Get: %+v (%v), want %+v", got, err, u)
		}
		var ids []at.UserID
		if err := e.x.SelectContext(ctx, &ids, `SELECT id FROM users ORDER BY email`); err != nil || len(ids) != 3 || ids[0] != u.ID {
			t.Errorf("Select IDs: %v (%v)", ids, err)
		}

		// sqlx.In with a slice of IDs.
		q, args, err := sqlx.In(`SELECT id, email FROM users WHERE id IN (?) ORDER BY email`, []at.UserID{u.ID, kept})
		if err != nil {
			t.Fatal(err)
		}
		var two []User
		if err := e.x.SelectContext(ctx, &two, e.x.Rebind(q), args...); err != nil || len(two) != 2 || two[0] != u || two[1].ID != kept {
			t.Errorf("sqlx.In: %+v (%v)", two, err)
		}

		var back []Post
		if err := e.x.SelectContext(ctx, &back, `SELECT id, title, author_id, editor_id, reviewer_id, ref FROM posts ORDER BY title`); err != nil {
			t.Fatal(err)
		}
		if len(back) != 2 || back[0].ID != posts[0].ID || back[0].EditorID != nil || back[0].ReviewerID.Valid || back[0].Ref != posts[0].Ref ||
			back[1].EditorID == nil || *back[1].EditorID != more[0].ID || back[1].ReviewerID != posts[1].ReviewerID {
			t.Errorf("posts read back %+v", back)
		}
		var raw int64
		if err := e.x.Get(&raw, e.x.Rebind(`SELECT id FROM users WHERE email = ?`), u.Email); err != nil || raw != u.ID.Int64() {
			t.Errorf("stored %d (%v), want %d", raw, err, u.ID.Int64())
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
			if !errors.Is(err, nonce.ErrDisabled) || !strings.Contains(err.Error(), "oncesqlx: new ID for User.ID") {
				t.Errorf("%s: error %v, want nonce.ErrDisabled", name, err)
			}
			if us[0].ID.Uint64() != 9 || !us[1].ID.IsZero() {
				t.Errorf("%s: IDs changed: %v", name, us)
			}
			p := Post{Title: "x"}
			if err := oncesqlx.Fill(&p); !errors.Is(err, nonce.ErrDisabled) || !p.ID.IsZero() || !p.Ref.IsZero() {
				t.Errorf("%s: Fill: %v, %+v", name, err, p)
			}
			if n := at.Count(t, db, "users"); n != 0 {
				t.Errorf("%s: %d rows written", name, n)
			}
		}
	})
}

func TestFillErrors(t *testing.T) {
	at.Leased(t)
	if err := oncesqlx.Fill(User{}); err == nil {
		t.Error("Fill of a struct value: no error")
	}
	if err := oncesqlx.Fill((*User)(nil)); err == nil {
		t.Error("Fill(nil): no error")
	}
	if err := oncesqlx.Fill(&[]int{1}); err == nil {
		t.Error("Fill(&[]int): no error")
	}
	us := []*User{nil, {}}
	if err := oncesqlx.Fill(us); err != nil || us[1].ID.IsZero() {
		t.Errorf("Fill with a nil element: %v %v", err, us[1])
	}
}
