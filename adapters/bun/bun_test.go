package oncebun_test

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type User struct {
	bun.BaseModel `bun:"table:users"`
	ID            at.UserID `bun:",pk"`
	Email         string
	Posts         []*Post `bun:"rel:has-many,join:id=author_id"`
	Edited        []*Post `bun:"rel:has-many,join:id=editor_id"` // through a *T foreign key
}

func (u *User) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, u)
}

type Post struct {
	bun.BaseModel `bun:"table:posts"`
	ID            at.PostID `bun:",pk"`
	Title         string
	AuthorID      at.UserID `bun:",notnull"`
	Author        *User     `bun:"rel:belongs-to,join:author_id=id"`
	EditorID      *at.UserID
	Editor        *User `bun:"rel:belongs-to,join:editor_id=id"`
	ReviewerID    sql.Null[at.UserID]
	Reviewer      *User     `bun:"rel:belongs-to,join:reviewer_id=id"`
	CheckerID     at.UserID `bun:",nullzero"`
	Checker       *User     `bun:"rel:belongs-to,join:checker_id=id"`
	Tags          []Tag     `bun:"m2m:post_tags,join:Post=Tag"`
}

func (p *Post) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, p)
}

type Tag struct {
	bun.BaseModel `bun:"table:tags"`
	ID            at.URL64ID `bun:",pk"`
	Name          string
	Posts         []Post `bun:"m2m:post_tags,join:Tag=Post"`
}

func (t *Tag) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, t)
}

type PostTag struct {
	bun.BaseModel `bun:"table:post_tags"`
	PostID        at.PostID  `bun:",pk"`
	Post          *Post      `bun:"rel:belongs-to,join:post_id=id"`
	TagID         at.URL64ID `bun:",pk"`
	Tag           *Tag       `bun:"rel:belongs-to,join:tag_id=id"`
}

// Note has a plain once.ID key and no hook: it is filled with Fill.
type Note struct {
	bun.BaseModel `bun:"table:notes"`
	ID            once.ID `bun:",pk"`
	Body          string
}

type Formats struct {
	bun.BaseModel `bun:"table:formats"`
	ID            at.UnsignedID `bun:",pk"`
	Raw           at.RawID      `once:"auto"`
	RawP          at.RawPfxID   `once:"auto"`
	U64           at.URL64ID    `once:"auto"`
	HexP          at.HexPfxID   `once:"auto"`
	H32           at.Hex32ID    `once:"auto"`
	Plain         once.ID       `once:"auto"`
	Ptr           *at.URL64ID   `once:"auto"`
	Opt           *at.URL64ID
}

func (f *Formats) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, f)
}

var models = []any{(*User)(nil), (*Tag)(nil), (*Post)(nil), (*PostTag)(nil), (*Note)(nil), (*Formats)(nil), (*Member)(nil)}

// queryLog is a bun.QueryHook that records the SQL it is about to run.
type queryLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *queryLog) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	l.mu.Lock()
	l.stmts = append(l.stmts, e.Query)
	l.mu.Unlock()
	return ctx
}

func (l *queryLog) AfterQuery(context.Context, *bun.QueryEvent) {}

func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stmts
	l.stmts = nil
	return s
}

type env struct {
	db  at.DB
	b   *bun.DB
	log *queryLog
}

func open(t *testing.T, db at.DB) *env {
	t.Helper()
	var b *bun.DB
	switch db.Dialect {
	case idfield.Postgres:
		b = bun.NewDB(db.SQL, pgdialect.New())
	case idfield.MySQL:
		b = bun.NewDB(db.SQL, mysqldialect.New())
	case idfield.SQLite:
		b = bun.NewDB(db.SQL, sqlitedialect.New())
	}
	b.RegisterModel((*PostTag)(nil))
	if err := oncebun.Register(b, models...); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range models {
		if _, err := b.NewCreateTable().Model(m).WithForeignKeys().Exec(ctx); err != nil {
			t.Fatalf("create table for %T: %v", m, err)
		}
	}
	e := &env{db: db, log: &queryLog{}}
	e.b = b.WithQueryHook(e.log)
	return e
}

func TestSchema(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		open(t, db)
		check := func(table, col string, o once.Options, pk bool) {
			t.Helper()
			c, ok := at.Columns(t, db, table)[col]
			if !ok {
				t.Fatalf("%s.%s missing", table, col)
			}
			want := at.WantColumn(db.Dialect, o)
			if c.Type != want.Type || c.Collation != want.Collation || c.PK != pk || c.Extra != "" {
				t.Errorf("%s.%s: %+v, want %+v, primary key %v, no default", table, col, c, want, pk)
			}
		}
		check("users", "id", at.UserID{}.Options(), true)
		check("posts", "id", at.PostID{}.Options(), true)
		check("posts", "author_id", at.UserID{}.Options(), false)
		check("posts", "editor_id", at.UserID{}.Options(), false)
		check("posts", "reviewer_id", at.UserID{}.Options(), false)
		check("posts", "checker_id", at.UserID{}.Options(), false)
		check("tags", "id", at.URL64ID{}.Options(), true)
		check("post_tags", "post_id", at.PostID{}.Options(), true)
		check("post_tags", "tag_id", at.URL64ID{}.Options(), true)
		check("notes", "id", once.Options{}, true)
		check("formats", "id", at.UnsignedID{}.Options(), true)
		check("formats", "raw", at.RawID{}.Options(), false)
		check("formats", "rawp", at.RawPfxID{}.Options(), false)
		check("formats", "u64", at.URL64ID{}.Options(), false)
		check("formats", "hexp", at.HexPfxID{}.Options(), false)
		check("formats", "h32", at.Hex32ID{}.Options(), false)
		check("formats", "plain", once.Options{}, false)
	})
}

func TestInsert(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)

		u := User{Email: "ada@example.com"}
		if _, err := e.b.NewInsert().Model(&u).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		stmts := e.log.take()
		if u.ID.IsZero() || len(stmts) != 1 || !strings.Contains(stmts[0], strconv.FormatInt(u.ID.Int64(), 10)) {
			t.Fatalf("ID %v; want one INSERT carrying it, ran %q", u.ID, stmts)
		}

		// Query by the masked, prefixed text.
		id, err := once.ParseAs[at.UserID](u.ID.String())
		if err != nil || !strings.HasPrefix(u.ID.String(), "usr_") {
			t.Fatalf("parse %q: %v", u.ID.String(), err)
		}
		var got User
		if err := e.b.NewSelect().Model(&got).Where("id = ?", id).Scan(ctx); err != nil || got.ID != u.ID || got.Email != u.Email {
			t.Fatalf("read back %+v (%v)", got, err)
		}
		got = User{ID: id}
		if err := e.b.NewSelect().Model(&got).WherePK().Scan(ctx); err != nil || got.Email != u.Email {
			t.Errorf("WherePK: %+v (%v)", got, err)
		}
		var raw int64
		if err := db.SQL.QueryRow("SELECT id FROM users").Scan(&raw); err != nil || raw != u.ID.Int64() {
			t.Errorf("stored %d (%v), want %d", raw, err, u.ID.Int64())
		}

		// Bulk insert of pointers, one ID set by the caller; nullable
		// foreign keys; nullzero.
		kept := at.PostID(once.FromUint64(42))
		posts := []*Post{
			{Title: "one", AuthorID: u.ID},
			{Title: "two", AuthorID: u.ID, ID: kept, EditorID: &u.ID, ReviewerID: sql.Null[at.UserID]{V: u.ID, Valid: true}, CheckerID: u.ID},
		}
		if _, err := e.b.NewInsert().Model(&posts).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if posts[0].ID.IsZero() || posts[1].ID != kept {
			t.Fatalf("post IDs %v %v", posts[0].ID, posts[1].ID)
		}
		var nulls int
		if err := db.SQL.QueryRow("SELECT count(*) FROM posts WHERE editor_id IS NULL AND reviewer_id IS NULL AND checker_id IS NULL").Scan(&nulls); err != nil || nulls != 1 {
			t.Errorf("rows with NULL foreign keys: %d (%v), want 1", nulls, err)
		}
		var back []Post
		if err := e.b.NewSelect().Model(&back).Order("title").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(back) != 2 || back[0].ID != posts[0].ID || back[0].EditorID != nil || back[0].ReviewerID.Valid || !back[0].CheckerID.IsZero() ||
			back[1].EditorID == nil || *back[1].EditorID != u.ID || back[1].ReviewerID != posts[1].ReviewerID || back[1].CheckerID != u.ID {
			t.Errorf("posts read back %+v", back)
		}

		// Relations: has-many, belongs-to, many-to-many with text keys.
		tags := []Tag{{Name: "go"}, {Name: "sql"}}
		if _, err := e.b.NewInsert().Model(&tags).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		links := []PostTag{{PostID: posts[0].ID, TagID: tags[0].ID}, {PostID: posts[0].ID, TagID: tags[1].ID}}
		if _, err := e.b.NewInsert().Model(&links).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		var withPosts User
		if err := e.b.NewSelect().Model(&withPosts).Relation("Posts").Where("?TableAlias.id = ?", u.ID).Scan(ctx); err != nil || len(withPosts.Posts) != 2 {
			t.Fatalf("has-many: %+v (%v)", withPosts, err)
		}
		var p Post
		if err := e.b.NewSelect().Model(&p).Relation("Author").Relation("Tags").Where("?TableAlias.id = ?", posts[0].ID).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if p.Author == nil || p.Author.ID != u.ID || len(p.Tags) != 2 {
			t.Errorf("belongs-to / m2m: %+v", p)
		}

		// Plain once.ID with Fill, and every DB format.
		n := Note{Body: "plain"}
		if err := oncebun.Fill(e.b, &n); err != nil || n.ID.IsZero() {
			t.Fatalf("Fill: %v %v", n.ID, err)
		}
		if _, err := e.b.NewInsert().Model(&n).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		fs := []Formats{{}, {ID: at.UnsignedID(once.FromUint64(1<<63 + 5))}} // unsigned above int64
		if _, err := e.b.NewInsert().Model(&fs).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		var fback []Formats
		if err := e.b.NewSelect().Model(&fback).Scan(ctx); err != nil || len(fback) != 2 {
			t.Fatalf("formats: %v %v", fback, err)
		}
		for _, f := range fback {
			want := fs[0]
			if f.ID == fs[1].ID {
				want = fs[1]
			}
			if f.ID.IsZero() || f.Raw != want.Raw || f.RawP != want.RawP || f.U64 != want.U64 || f.HexP != want.HexP ||
				f.H32 != want.H32 || f.Plain != want.Plain || f.Ptr == nil || *f.Ptr != *want.Ptr || f.Opt != nil {
				t.Errorf("formats read back %+v, want %+v", f, want)
			}
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
			e.log.take()
			u := User{Email: "x@example.com"}
			_, err := e.b.NewInsert().Model(&u).Exec(ctx)
			if !errors.Is(err, nonce.ErrDisabled) || !strings.Contains(err.Error(), "oncebun: new ID for User.ID") {
				t.Errorf("%s: insert error %v, want nonce.ErrDisabled", name, err)
			}
			posts := []Post{{Title: "a", ID: at.PostID(once.FromUint64(5))}, {Title: "b"}, {Title: "c"}}
			if _, err := e.b.NewInsert().Model(&posts).Exec(ctx); !errors.Is(err, nonce.ErrDisabled) {
				t.Errorf("%s: bulk insert error %v", name, err)
			}
			if !u.ID.IsZero() || posts[0].ID.Uint64() != 5 || !posts[1].ID.IsZero() || !posts[2].ID.IsZero() {
				t.Errorf("%s: IDs changed: %v %v", name, u.ID, posts)
			}
			if s := e.log.take(); len(s) != 0 {
				t.Errorf("%s: ran SQL %q", name, s)
			}
			if n := at.Count(t, db, "users") + at.Count(t, db, "posts"); n != 0 {
				t.Errorf("%s: %d rows written", name, n)
			}
		}
	})
}
