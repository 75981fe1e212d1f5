package oncebun_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, oncebun.Register(b, models...))
	ctx := context.Background()
	for _, m := range models {
		_, err := b.NewCreateTable().Model(m).WithForeignKeys().Exec(ctx)
		require.NoError(t, err, "create table for %T", m)
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
			require.True(t, ok, "%s.%s missing", table, col)
			want := at.WantColumn(db.Dialect, o)
			assert.Equal(t, want.Type, c.Type, "%s.%s: type", table, col)
			assert.Equal(t, want.Collation, c.Collation, "%s.%s: collation", table, col)
			assert.Equal(t, pk, c.PK, "%s.%s: primary key", table, col)
			assert.Empty(t, c.Extra, "%s.%s: extra, want no default", table, col)
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
		_, err := e.b.NewInsert().Model(&u).Exec(ctx)
		require.NoError(t, err)
		stmts := e.log.take()
		require.False(t, u.ID.IsZero(), "ID after insert")
		require.Len(t, stmts, 1, "want one INSERT carrying ID %v", u.ID)
		require.Contains(t, stmts[0], strconv.FormatInt(u.ID.Int64(), 10), "want one INSERT carrying ID %v", u.ID)

		// Query by the masked, prefixed text.
		id, err := once.ParseAs[at.UserID](u.ID.String())
		require.NoError(t, err, "parse %q", u.ID.String())
		require.True(t, strings.HasPrefix(u.ID.String(), "usr_"), "text %q, want prefix usr_", u.ID.String())
		var got User
		require.NoError(t, e.b.NewSelect().Model(&got).Where("id = ?", id).Scan(ctx), "read back")
		require.Equal(t, u.ID, got.ID, "read back %+v", got)
		require.Equal(t, u.Email, got.Email, "read back %+v", got)
		got = User{ID: id}
		if assert.NoError(t, e.b.NewSelect().Model(&got).WherePK().Scan(ctx), "WherePK") {
			assert.Equal(t, u.Email, got.Email, "WherePK: %+v", got)
		}
		var raw int64
		if assert.NoError(t, db.SQL.QueryRow("SELECT id FROM users").Scan(&raw), "stored id") {
			assert.Equal(t, u.ID.Int64(), raw, "stored id")
		}

		// Bulk insert of pointers, one ID set by the caller (kept with the
		// opt-in); nullable foreign keys; nullzero.
		kept := at.PostID(once.FromUint64(42))
		posts := []*Post{
			{Title: "one", AuthorID: u.ID},
			{Title: "two", AuthorID: u.ID, ID: kept, EditorID: &u.ID, ReviewerID: sql.Null[at.UserID]{V: u.ID, Valid: true}, CheckerID: u.ID},
		}
		_, err = e.b.NewInsert().Model(&posts).Exec(keepPresets)
		require.NoError(t, err)
		require.False(t, posts[0].ID.IsZero(), "first post ID")
		require.Equal(t, kept, posts[1].ID, "the post ID set by the caller")
		var nulls int
		if assert.NoError(t, db.SQL.QueryRow("SELECT count(*) FROM posts WHERE editor_id IS NULL AND reviewer_id IS NULL AND checker_id IS NULL").Scan(&nulls), "rows with NULL foreign keys") {
			assert.Equal(t, 1, nulls, "rows with NULL foreign keys")
		}
		var back []Post
		require.NoError(t, e.b.NewSelect().Model(&back).Order("title").Scan(ctx))
		if assert.Len(t, back, 2, "posts read back") {
			assert.Equal(t, posts[0].ID, back[0].ID, "first post read back")
			assert.Nil(t, back[0].EditorID, "first post read back: EditorID")
			assert.False(t, back[0].ReviewerID.Valid, "first post read back: ReviewerID %v, want NULL", back[0].ReviewerID)
			assert.True(t, back[0].CheckerID.IsZero(), "first post read back: CheckerID %v, want zero", back[0].CheckerID)
			if assert.NotNil(t, back[1].EditorID, "second post read back: EditorID") {
				assert.Equal(t, u.ID, *back[1].EditorID, "second post read back: EditorID")
			}
			assert.Equal(t, posts[1].ReviewerID, back[1].ReviewerID, "second post read back: ReviewerID")
			assert.Equal(t, u.ID, back[1].CheckerID, "second post read back: CheckerID")
		}

		// Relations: has-many, belongs-to, many-to-many with text keys.
		tags := []Tag{{Name: "go"}, {Name: "sql"}}
		_, err = e.b.NewInsert().Model(&tags).Exec(ctx)
		require.NoError(t, err)
		links := []PostTag{{PostID: posts[0].ID, TagID: tags[0].ID}, {PostID: posts[0].ID, TagID: tags[1].ID}}
		_, err = e.b.NewInsert().Model(&links).Exec(ctx)
		require.NoError(t, err)
		var withPosts User
		require.NoError(t, e.b.NewSelect().Model(&withPosts).Relation("Posts").Where("?TableAlias.id = ?", u.ID).Scan(ctx), "has-many")
		require.Len(t, withPosts.Posts, 2, "has-many")
		var p Post
		require.NoError(t, e.b.NewSelect().Model(&p).Relation("Author").Relation("Tags").Where("?TableAlias.id = ?", posts[0].ID).Scan(ctx))
		if assert.NotNil(t, p.Author, "belongs-to") {
			assert.Equal(t, u.ID, p.Author.ID, "belongs-to")
		}
		assert.Len(t, p.Tags, 2, "m2m")

		// Plain once.ID with Fill, and every DB format.
		n := Note{Body: "plain"}
		require.NoError(t, oncebun.Fill(ctx, e.b, &n), "Fill")
		require.False(t, n.ID.IsZero(), "Fill: ID")
		_, err = e.b.NewInsert().Model(&n).Exec(ctx)
		require.NoError(t, err)
		fs := []Formats{{}, {ID: at.UnsignedID(once.FromUint64(1<<63 + 5))}} // unsigned above int64, kept with the opt-in
		_, err = e.b.NewInsert().Model(&fs).Exec(keepPresets)
		require.NoError(t, err)
		var fback []Formats
		require.NoError(t, e.b.NewSelect().Model(&fback).Scan(ctx), "formats")
		require.Len(t, fback, 2, "formats")
		for _, f := range fback {
			want := fs[0]
			if f.ID == fs[1].ID {
				want = fs[1]
			}
			assert.False(t, f.ID.IsZero(), "formats read back: ID")
			assert.Equal(t, want.Raw, f.Raw, "formats read back %v: Raw", f.ID)
			assert.Equal(t, want.RawP, f.RawP, "formats read back %v: RawP", f.ID)
			assert.Equal(t, want.U64, f.U64, "formats read back %v: U64", f.ID)
			assert.Equal(t, want.HexP, f.HexP, "formats read back %v: HexP", f.ID)
			assert.Equal(t, want.H32, f.H32, "formats read back %v: H32", f.ID)
			assert.Equal(t, want.Plain, f.Plain, "formats read back %v: Plain", f.ID)
			if assert.NotNil(t, f.Ptr, "formats read back %v: Ptr", f.ID) {
				assert.Equal(t, *want.Ptr, *f.Ptr, "formats read back %v: Ptr", f.ID)
			}
			assert.Nil(t, f.Opt, "formats read back %v: Opt", f.ID)
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
			if assert.ErrorIs(t, err, nonce.ErrDisabled, "%s: insert error", name) {
				assert.Contains(t, err.Error(), "oncebun: new ID for User.ID", "%s: insert error", name)
			}
			posts := []Post{{Title: "a", ID: at.PostID(once.FromUint64(5))}, {Title: "b"}, {Title: "c"}}
			_, err = e.b.NewInsert().Model(&posts).Exec(keepPresets)
			assert.ErrorIs(t, err, nonce.ErrDisabled, "%s: bulk insert error", name)
			assert.True(t, u.ID.IsZero(), "%s: ID changed: %v", name, u.ID)
			assert.Equal(t, uint64(5), posts[0].ID.Uint64(), "%s: the caller's post ID changed", name)
			assert.True(t, posts[1].ID.IsZero() && posts[2].ID.IsZero(), "%s: IDs changed: %v", name, posts)
			assert.Empty(t, e.log.take(), "%s: ran SQL", name)
			assert.Zero(t, at.Count(t, db, "users")+at.Count(t, db, "posts"), "%s: rows written", name)
		}
	})
}
