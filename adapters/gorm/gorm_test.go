package oncegorm_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"

	oncegorm "github.com/once-go/once/adapters/gorm"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type User struct {
	ID     at.UserID
	Email  string
	Posts  []Post `gorm:"foreignKey:AuthorID"`
	Edited []Post `gorm:"foreignKey:EditorID"` // has-many through a nullable *T foreign key

	idInHook at.UserID // what BeforeCreate saw
}

func (u *User) BeforeCreate(*gorm.DB) error {
	u.idInHook = u.ID
	return nil
}

type Post struct {
	ID         at.PostID
	Title      string
	AuthorID   at.UserID
	Author     *User
	EditorID   *at.UserID // nullable foreign key
	Editor     *User
	ReviewerID sql.Null[at.UserID] // nullable, no relation
	Tags       []Tag               `gorm:"many2many:post_tags"`
}

type Tag struct {
	ID   at.URL64ID // a text key
	Name string
}

// Note has a plain once.ID key.
type Note struct {
	ID   once.ID
	Body string
}

// Formats has one column per DB format; the non-key ones are filled because
// they are tagged auto.
type Formats struct {
	ID    at.UnsignedID
	Raw   at.RawID    `once:"auto"`
	RawP  at.RawPfxID `once:"auto"`
	U64   at.URL64ID  `once:"auto"`
	HexP  at.HexPfxID `once:"auto"`
	H32   at.Hex32ID  `once:"auto"`
	Plain once.ID     `once:"auto"`
	Ptr   *at.URL64ID `once:"auto"`
	Opt   *at.URL64ID // not tagged: stays NULL
}

var models = []any{&User{}, &Post{}, &Tag{}, &Note{}, &Formats{}, &Account{}}

// sqlLog records the statements GORM runs.
type sqlLog struct {
	logger.Interface
	mu   sync.Mutex
	stmt []string
}

func (l *sqlLog) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	s, _ := fc()
	l.mu.Lock()
	l.stmt = append(l.stmt, s)
	l.mu.Unlock()
}

func (l *sqlLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stmt
	l.stmt = nil
	return s
}

type env struct {
	db     at.DB
	g      *gorm.DB
	log    *sqlLog
	prefix string
}

func (e *env) table(name string) string { return e.prefix + name }

// open opens GORM on db with the plugin, migrates the models under a unique
// table prefix and drops them at the end.
func open(t *testing.T, db at.DB) *env {
	t.Helper()
	return openWith(t, db, gorm.Config{})
}

// openWith is open with GORM settings of the test's (PrepareStmt); the
// naming strategy and logger are open's.
func openWith(t *testing.T, db at.DB, cfg gorm.Config) *env {
	t.Helper()
	var d gorm.Dialector
	switch db.Dialect {
	case idfield.Postgres:
		d = postgres.New(postgres.Config{Conn: db.SQL})
	case idfield.MySQL:
		d = mysql.New(mysql.Config{Conn: db.SQL})
	case idfield.SQLite:
		d = &sqlite.Dialector{Conn: db.SQL}
	}
	e := &env{db: db, log: &sqlLog{Interface: logger.Discard}, prefix: testenv.Unique(t, "g") + "_"}
	cfg.NamingStrategy = schema.NamingStrategy{TablePrefix: e.prefix}
	cfg.Logger = e.log
	g, err := gorm.Open(d, &cfg)
	require.NoError(t, err)
	require.NoError(t, oncegorm.Register(g, models...))
	require.NoError(t, g.AutoMigrate(models...))
	e.g = g
	t.Cleanup(func() {
		assert.NoError(t, g.Migrator().DropTable(append([]any{e.prefix + "post_tags"}, models...)...), "drop")
	})
	e.log.take()
	return e
}

func TestSchema(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		check := func(table, col string, o once.Options, pk bool) {
			t.Helper()
			c, ok := at.Columns(t, db, e.table(table))[col]
			require.True(t, ok, "%s.%s missing", table, col)
			want := at.WantColumn(db.Dialect, o)
			assert.Equal(t, want.Type, c.Type, "%s.%s: type", table, col)
			assert.Equal(t, want.Collation, c.Collation, "%s.%s: collation", table, col)
			assert.Equal(t, pk, c.PK, "%s.%s: primary key", table, col)
			assert.Empty(t, c.Extra, "%s.%s: extra, want none (no auto-increment, default or identity)", table, col)
		}
		check("users", "id", at.UserID{}.Options(), true)
		check("posts", "id", at.PostID{}.Options(), true)
		check("posts", "author_id", at.UserID{}.Options(), false)
		check("posts", "editor_id", at.UserID{}.Options(), false)
		check("posts", "reviewer_id", at.UserID{}.Options(), false)
		check("tags", "id", at.URL64ID{}.Options(), true)
		check("post_tags", "post_id", at.PostID{}.Options(), true)
		check("post_tags", "tag_id", at.URL64ID{}.Options(), true)
		check("notes", "id", once.Options{}, true)
		check("formats", "id", at.UnsignedID{}.Options(), true)
		check("formats", "raw", at.RawID{}.Options(), false)
		check("formats", "raw_p", at.RawPfxID{}.Options(), false)
		check("formats", "u64", at.URL64ID{}.Options(), false)
		check("formats", "hex_p", at.HexPfxID{}.Options(), false)
		check("formats", "h32", at.Hex32ID{}.Options(), false)
		check("formats", "plain", once.Options{}, false)
		if db.Dialect == idfield.SQLite {
			var n int
			if assert.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM sqlite_master WHERE sql LIKE '%AUTOINCREMENT%'`).Scan(&n)) {
				assert.Zero(t, n, "AUTOINCREMENT tables")
			}
		}

		// Migrating again changes nothing.
		require.NoError(t, e.g.AutoMigrate(models...))
		for _, s := range e.log.take() {
			u := strings.ToUpper(s)
			assert.False(t, strings.HasPrefix(u, "ALTER") || strings.HasPrefix(u, "CREATE"), "second AutoMigrate ran %s", s)
		}
	})
}

func TestCreate(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)

		u := User{Email: "ada@example.com"}
		require.NoError(t, e.g.Create(&u).Error)
		require.False(t, u.ID.IsZero(), "ID after Create")
		require.Equal(t, u.ID, u.idInHook, "ID seen in BeforeCreate")
		stmts := e.log.take()
		if assert.Len(t, stmts, 1, "want one INSERT carrying the ID %d", u.ID.Int64()) {
			assert.Contains(t, stmts[0], "INSERT", "the statement Create ran")
			assert.Contains(t, stmts[0], itoa(u.ID.Int64()), "the INSERT carries the ID")
		}
		assert.NotContains(t, strings.ToUpper(stmts[0]), "RETURNING", "INSERT asks for the key back")

		// The database holds the stored (unmasked) value.
		var raw int64
		require.NoError(t, db.SQL.QueryRow("SELECT id FROM "+e.table("users")).Scan(&raw))
		require.Equal(t, u.ID.Int64(), raw, "stored id")

		// Query by the masked, prefixed text a client would send back.
		text := u.ID.String()
		require.True(t, strings.HasPrefix(text, "usr_"), "text %q, want prefix usr_", text)
		unmasked, _ := (once.Options{Prefix: "usr_"}).AppendText(nil, once.ID(u.ID))
		assert.NotEqual(t, text, string(unmasked), "%q is not masked", text)
		id, err := once.ParseAs[at.UserID](text)
		require.NoError(t, err)
		var got User
		require.NoError(t, e.g.First(&got, "id = ?", id).Error)
		assert.Equal(t, u.ID, got.ID, "read back %+v, want %+v", got, u)
		assert.Equal(t, u.Email, got.Email, "read back %+v, want %+v", got, u)
		if assert.NoError(t, e.g.First(&got, id).Error, "First by primary key value") {
			assert.Equal(t, u.ID, got.ID, "First by primary key value")
		}

		// Plain once.ID key.
		n := Note{Body: "plain"}
		require.NoError(t, e.g.Create(&n).Error, "create note")
		require.False(t, n.ID.IsZero(), "note ID after Create")
		var gotN Note
		if assert.NoError(t, e.g.First(&gotN, "id = ?", n.ID).Error, "note read back") {
			assert.Equal(t, n, gotN, "note read back")
		}
	})
}

func TestFormats(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		in := []Formats{{}, {}, {ID: at.UnsignedID(once.FromUint64(1<<63 + 5))}} // unsigned above int64
		preset := once.MustParseAs[at.URL64ID]("u_AAAAAAAAAAE")
		in[1].U64 = preset
		require.NoError(t, e.g.WithContext(keepPresets).Create(&in).Error, "create with preset IDs, kept")
		for i, f := range in {
			require.False(t, f.ID.IsZero() || f.Raw.IsZero() || f.RawP.IsZero() || f.U64.IsZero() || f.HexP.IsZero() ||
				f.H32.IsZero() || f.Plain.IsZero() || f.Ptr == nil || f.Ptr.IsZero(), "row %d not filled as expected: %+v", i, f)
			require.Nil(t, f.Opt, "row %d: untagged Opt", i)
		}
		assert.Equal(t, preset, in[1].U64, "user-set U64 replaced")
		var out []Formats
		require.NoError(t, e.g.Order("id").Find(&out).Error)
		require.Len(t, out, 3, "rows read back")
		byID := map[at.UnsignedID]Formats{}
		for _, f := range out {
			byID[f.ID] = f
		}
		for _, f := range in {
			g := byID[f.ID]
			assert.Equal(t, f, g, "read back") // Ptr by the value it points to
		}
		// Query by each kind of column.
		var one Formats
		if assert.NoError(t, e.g.Where("raw_p = ? AND u64 = ? AND hex_p = ?", in[0].RawP, in[0].U64, in[0].HexP).First(&one).Error, "query by raw/text columns") {
			assert.Equal(t, in[0].ID, one.ID, "query by raw/text columns")
		}
		// The text column compares case-sensitively (url64).
		upper := strings.ToUpper(in[0].U64.String()[2:])
		var n int64
		if assert.NoError(t, e.g.Model(&Formats{}).Where("u64 = ?", upper).Count(&n).Error, "count by case-folded url64") && upper != in[0].U64.String()[2:] {
			assert.Zero(t, n, "case-folded url64 matched rows")
		}
		// Stored forms.
		var big Formats
		if assert.NoError(t, e.g.First(&big, "id = ?", in[2].ID).Error, "lookup by an unsigned key above 2^63") {
			assert.Equal(t, in[2].U64, big.U64, "lookup by an unsigned key above 2^63: %+v", big)
		}
		var hexP, u64 string
		require.NoError(t, db.SQL.QueryRow("SELECT hex_p, u64 FROM "+e.table("formats")+" ORDER BY h32 LIMIT 1").Scan(&hexP, &u64))
		assert.True(t, strings.HasPrefix(hexP, "hx_"), "stored hex_p %q, want prefix hx_", hexP)
		assert.Len(t, hexP, 19, "stored hex_p")
		assert.Len(t, u64, 11, "stored u64")
	})
}

func TestAssociations(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)

		// Has-many: the posts are created after the user with its ID.
		kept := once.MustParseAs[at.PostID](mustText(at.PostID(once.FromUint64(42))))
		u := User{Email: "grace@example.com", Posts: []Post{{Title: "one"}, {Title: "two", ID: kept}}}
		require.NoError(t, e.g.WithContext(keepPresets).Create(&u).Error)
		require.False(t, u.ID.IsZero(), "user ID")
		require.False(t, u.Posts[0].ID.IsZero(), "first post ID")
		require.Equal(t, kept, u.Posts[1].ID, "the post ID set by the caller")
		for _, p := range u.Posts {
			assert.Equal(t, u.ID, p.AuthorID, "post %v author", p.ID)
		}

		// Belongs-to: the author is created first, the foreign keys follow;
		// nullable foreign keys as *T and sql.Null[T]; many-to-many tags with
		// text keys. Editor holds u, whose key is set: GORM saves it with an
		// upsert (ON CONFLICT DO NOTHING), which keeps preset IDs only with
		// the opt-in (TestPresetAssociation).
		p := Post{Title: "three", Author: &User{Email: "edsger@example.com"}, Editor: &u,
			ReviewerID: sql.Null[at.UserID]{V: u.ID, Valid: true}, Tags: []Tag{{Name: "go"}, {Name: "sql"}}}
		require.NoError(t, e.g.WithContext(keepPresets).Create(&p).Error)
		require.False(t, p.Author.ID.IsZero(), "author ID")
		require.Equal(t, p.Author.ID, p.AuthorID, "author foreign key")
		require.NotNil(t, p.EditorID, "editor foreign key")
		require.Equal(t, u.ID, *p.EditorID, "editor foreign key")
		require.False(t, p.Tags[0].ID.IsZero() || p.Tags[1].ID.IsZero(), "tags %+v", p.Tags)

		var got User
		require.NoError(t, e.g.Preload("Posts.Tags").Preload("Posts.Editor").First(&got, "id = ?", u.ID).Error)
		require.Len(t, got.Posts, 2, "preloaded posts")
		var three Post
		require.NoError(t, e.g.Preload("Author").Preload("Editor").Preload("Tags").First(&three, "id = ?", p.ID).Error)
		if assert.NotNil(t, three.Author, "post read back: Author") {
			assert.Equal(t, p.Author.ID, three.Author.ID, "post read back: Author")
		}
		if assert.NotNil(t, three.Editor, "post read back: Editor") {
			assert.Equal(t, u.ID, three.Editor.ID, "post read back: Editor")
		}
		assert.Equal(t, p.ReviewerID, three.ReviewerID, "post read back: ReviewerID")
		assert.Len(t, three.Tags, 2, "post read back: Tags")

		// NULL foreign keys read back as nil / invalid.
		var one Post
		require.NoError(t, e.g.First(&one, "id = ?", u.Posts[0].ID).Error)
		assert.Nil(t, one.EditorID, "nullable foreign key EditorID, want NULL")
		assert.False(t, one.ReviewerID.Valid, "nullable foreign key ReviewerID %v, want NULL", one.ReviewerID)
		// Query by a foreign key.
		var n int64
		if assert.NoError(t, e.g.Model(&Post{}).Where("author_id = ?", u.ID).Count(&n).Error, "posts by author") {
			assert.Equal(t, int64(2), n, "posts by author")
		}
	})
}

func TestNoLease(t *testing.T) {
	at.Each(t, func(t *testing.T, db at.DB) {
		at.Leased(t)
		e := open(t, db)
		for _, name := range []string{"never activated", "disabled"} {
			if name == "never activated" {
				at.Unleased(t)
			} else {
				at.Leased(t).Disable()
			}
			u := User{Email: "x@example.com"}
			err := e.g.Create(&u).Error
			if assert.ErrorIs(t, err, nonce.ErrDisabled, "%s: create error", name) {
				assert.Contains(t, err.Error(), "oncegorm: new ID for User.ID", "%s: create error", name)
			}
			assert.True(t, u.ID.IsZero(), "%s: ID %v left behind", name, u.ID)
			posts := []Post{{Title: "a"}, {Title: "b"}}
			assert.ErrorIs(t, e.g.Create(&posts).Error, nonce.ErrDisabled, "%s: batch create error", name)
			assert.True(t, posts[0].ID.IsZero() && posts[1].ID.IsZero(), "%s: IDs left behind: %v", name, posts)
			for _, table := range []string{"users", "posts"} {
				assert.Zero(t, at.Count(t, db, e.table(table)), "%s: rows in %s", name, table)
			}
		}
	})
}

func mustText(id at.PostID) string {
	b, err := id.MarshalText()
	if err != nil {
		panic(err)
	}
	return string(b)
}

func itoa(v int64) string {
	b, _ := once.Options{Format: once.Signed}.AppendText(nil, once.FromInt64(v))
	return string(b)
}

// TestTableName: a model migrated under db.Table(name) is prepared when the
// plugin is registered with that db.Table(name).
func TestTableName(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		name := e.table("named_notes")
		require.NoError(t, oncegorm.Prepare(e.g.Table(name), &Note{}))
		require.NoError(t, e.g.Table(name).AutoMigrate(&Note{}))
		t.Cleanup(func() { e.g.Migrator().DropTable(name) })
		c := at.Columns(t, db, name)["id"]
		want := at.WantColumn(db.Dialect, once.Options{})
		assert.Equal(t, want.Type, c.Type, "id column %+v", c)
		assert.True(t, c.PK, "id column %+v, want a primary key", c)
		assert.Empty(t, c.Extra, "id column %+v, want no default", c)
		n := Note{Body: "x"}
		if assert.NoError(t, e.g.Table(name).Create(&n).Error, "create") {
			assert.False(t, n.ID.IsZero(), "create: ID %v", n.ID)
		}
	})
}
