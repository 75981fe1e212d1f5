package oncegorm_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
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
	if err != nil {
		t.Fatal(err)
	}
	if err := oncegorm.Register(g, models...); err != nil {
		t.Fatal(err)
	}
	if err := g.AutoMigrate(models...); err != nil {
		t.Fatal(err)
	}
	e.g = g
	t.Cleanup(func() {
		if err := g.Migrator().DropTable(append([]any{e.prefix + "post_tags"}, models...)...); err != nil {
			t.Errorf("drop: %v", err)
		}
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
			if !ok {
				t.Fatalf("%s.%s missing", table, col)
			}
			want := at.WantColumn(db.Dialect, o)
			if c.Type != want.Type || c.Collation != want.Collation {
				t.Errorf("%s.%s: type %q collation %q, want %q %q", table, col, c.Type, c.Collation, want.Type, want.Collation)
			}
			if c.PK != pk {
				t.Errorf("%s.%s: primary key %v, want %v", table, col, c.PK, pk)
			}
			if c.Extra != "" {
				t.Errorf("%s.%s: extra %q, want none (no auto-increment, default or identity)", table, col, c.Extra)
			}
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
			if err := db.SQL.QueryRow(`SELECT count(*) FROM sqlite_master WHERE sql LIKE '%AUTOINCREMENT%'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("AUTOINCREMENT tables: %d (%v)", n, err)
			}
		}

		// Migrating again changes nothing.
		if err := e.g.AutoMigrate(models...); err != nil {
			t.Fatal(err)
		}
		for _, s := range e.log.take() {
			if u := strings.ToUpper(s); strings.HasPrefix(u, "ALTER") || strings.HasPrefix(u, "CREATE") {
				t.Errorf("second AutoMigrate ran %s", s)
			}
		}
	})
}

func TestCreate(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)

		u := User{Email: "ada@example.com"}
		if err := e.g.Create(&u).Error; err != nil {
			t.Fatal(err)
		}
		if u.ID.IsZero() || u.idInHook != u.ID {
			t.Fatalf("ID %v, seen in BeforeCreate %v", u.ID, u.idInHook)
		}
		stmts := e.log.take()
		if len(stmts) != 1 || !strings.Contains(stmts[0], "INSERT") || !strings.Contains(stmts[0], itoa(u.ID.Int64())) {
			t.Errorf("want one INSERT carrying the ID %d, ran %q", u.ID.Int64(), stmts)
		}
		if strings.Contains(strings.ToUpper(stmts[0]), "RETURNING") {
			t.Errorf("INSERT asks for the key back: %s", stmts[0])
		}

		// The database holds the stored (unmasked) value.
		var raw int64
		if err := db.SQL.QueryRow("SELECT id FROM " + e.table("users")).Scan(&raw); err != nil || raw != u.ID.Int64() {
			t.Fatalf("stored %d (%v), want %d", raw, err, u.ID.Int64())
		}

		// Query by the masked, prefixed text a client would send back.
		text := u.ID.String()
		if !strings.HasPrefix(text, "usr_") {
			t.Fatalf("text %q", text)
		}
		if unmasked, _ := (once.Options{Prefix: "usr_"}).AppendText(nil, once.ID(u.ID)); string(unmasked) == text {
			t.Errorf("%q is not masked", text)
		}
		id, err := once.ParseAs[at.UserID](text)
		if err != nil {
			t.Fatal(err)
		}
		var got User
		if err := e.g.First(&got, "id = ?", id).Error; err != nil {
			t.Fatal(err)
		}
		if got.ID != u.ID || got.Email != u.Email {
			t.Errorf("read back %+v, want %+v", got, u)
		}
		if err := e.g.First(&got, id).Error; err != nil || got.ID != u.ID {
			t.Errorf("First by primary key value: %+v, %v", got, err)
		}

		// Plain once.ID key.
		n := Note{Body: "plain"}
		if err := e.g.Create(&n).Error; err != nil || n.ID.IsZero() {
			t.Fatalf("note %v: %v", n.ID, err)
		}
		var gotN Note
		if err := e.g.First(&gotN, "id = ?", n.ID).Error; err != nil || gotN != n {
			t.Errorf("note read back %+v (%v), want %+v", gotN, err, n)
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
		if err := e.g.Create(&in).Error; err != nil {
			t.Fatal(err)
		}
		for i, f := range in {
			if f.ID.IsZero() || f.Raw.IsZero() || f.RawP.IsZero() || f.U64.IsZero() || f.HexP.IsZero() ||
				f.H32.IsZero() || f.Plain.IsZero() || f.Ptr == nil || f.Ptr.IsZero() || f.Opt != nil {
				t.Fatalf("row %d not filled as expected: %+v", i, f)
			}
		}
		if in[1].U64 != preset {
			t.Errorf("user-set U64 replaced: %v", in[1].U64)
		}
		var out []Formats
		if err := e.g.Order("id").Find(&out).Error; err != nil {
			t.Fatal(err)
		}
		if len(out) != 3 {
			t.Fatalf("read %d rows", len(out))
		}
		byID := map[at.UnsignedID]Formats{}
		for _, f := range out {
			byID[f.ID] = f
		}
		for _, f := range in {
			g := byID[f.ID]
			if g.Raw != f.Raw || g.RawP != f.RawP || g.U64 != f.U64 || g.HexP != f.HexP || g.H32 != f.H32 ||
				g.Plain != f.Plain || g.Ptr == nil || *g.Ptr != *f.Ptr || g.Opt != nil {
				t.Errorf("read back %+v, want %+v", g, f)
			}
		}
		// Query by each kind of column.
		var one Formats
		if err := e.g.Where("raw_p = ? AND u64 = ? AND hex_p = ?", in[0].RawP, in[0].U64, in[0].HexP).First(&one).Error; err != nil || one.ID != in[0].ID {
			t.Errorf("query by raw/text columns: %v %v", one.ID, err)
		}
		// The text column compares case-sensitively (url64).
		upper := strings.ToUpper(in[0].U64.String()[2:])
		var n int64
		if err := e.g.Model(&Formats{}).Where("u64 = ?", upper).Count(&n).Error; err != nil || (n != 0 && upper != in[0].U64.String()[2:]) {
			t.Errorf("case-folded url64 matched %d rows (%v)", n, err)
		}
		// Stored forms.
		var big Formats
		if err := e.g.First(&big, "id = ?", in[2].ID).Error; err != nil || big.U64 != in[2].U64 {
			t.Errorf("lookup by an unsigned key above 2^63: %+v %v", big, err)
		}
		var hexP, u64 string
		if err := db.SQL.QueryRow("SELECT hex_p, u64 FROM "+e.table("formats")+" ORDER BY h32 LIMIT 1").Scan(&hexP, &u64); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(hexP, "hx_") || len(hexP) != 19 || len(u64) != 11 {
			t.Errorf("stored hex_p %q, u64 %q", hexP, u64)
		}
	})
}

func TestAssociations(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)

		// Has-many: the posts are created after the user with its ID.
		kept := once.MustParseAs[at.PostID](mustText(at.PostID(once.FromUint64(42))))
		u := User{Email: "grace@example.com", Posts: []Post{{Title: "one"}, {Title: "two", ID: kept}}}
		if err := e.g.Create(&u).Error; err != nil {
			t.Fatal(err)
		}
		if u.ID.IsZero() || u.Posts[0].ID.IsZero() || u.Posts[1].ID != kept {
			t.Fatalf("user %v posts %v %v", u.ID, u.Posts[0].ID, u.Posts[1].ID)
		}
		for _, p := range u.Posts {
			if p.AuthorID != u.ID {
				t.Errorf("post %v author %v, want %v", p.ID, p.AuthorID, u.ID)
			}
		}

		// Belongs-to: the author is created first, the foreign keys follow;
		// nullable foreign keys as *T and sql.Null[T]; many-to-many tags with
		// text keys.
		p := Post{Title: "three", Author: &User{Email: "edsger@example.com"}, Editor: &u,
			ReviewerID: sql.Null[at.UserID]{V: u.ID, Valid: true}, Tags: []Tag{{Name: "go"}, {Name: "sql"}}}
		if err := e.g.Create(&p).Error; err != nil {
			t.Fatal(err)
		}
		if p.Author.ID.IsZero() || p.AuthorID != p.Author.ID || p.EditorID == nil || *p.EditorID != u.ID {
			t.Fatalf("author %v/%v editor %v", p.Author.ID, p.AuthorID, p.EditorID)
		}
		if p.Tags[0].ID.IsZero() || p.Tags[1].ID.IsZero() {
			t.Fatalf("tags %+v", p.Tags)
		}

		var got User
		if err := e.g.Preload("Posts.Tags").Preload("Posts.Editor").First(&got, "id = ?", u.ID).Error; err != nil {
			t.Fatal(err)
		}
		if len(got.Posts) != 2 {
			t.Fatalf("preloaded %d posts", len(got.Posts))
		}
		var three Post
		if err := e.g.Preload("Author").Preload("Editor").Preload("Tags").First(&three, "id = ?", p.ID).Error; err != nil {
			t.Fatal(err)
		}
		if three.Author == nil || three.Author.ID != p.Author.ID || three.Editor == nil || three.Editor.ID != u.ID ||
			three.ReviewerID != p.ReviewerID || len(three.Tags) != 2 {
			t.Errorf("post read back %+v", three)
		}

		// NULL foreign keys read back as nil / invalid.
		var one Post
		if err := e.g.First(&one, "id = ?", u.Posts[0].ID).Error; err != nil {
			t.Fatal(err)
		}
		if one.EditorID != nil || one.ReviewerID.Valid {
			t.Errorf("nullable foreign keys %v %v, want NULL", one.EditorID, one.ReviewerID)
		}
		// Query by a foreign key.
		var n int64
		if err := e.g.Model(&Post{}).Where("author_id = ?", u.ID).Count(&n).Error; err != nil || n != 2 {
			t.Errorf("posts by author: %d %v", n, err)
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
			if !errors.Is(err, nonce.ErrDisabled) || !strings.Contains(err.Error(), "oncegorm: new ID for User.ID") {
				t.Errorf("%s: create error %v, want nonce.ErrDisabled", name, err)
			}
			if !u.ID.IsZero() {
				t.Errorf("%s: ID %v left behind", name, u.ID)
			}
			posts := []Post{{Title: "a"}, {Title: "b"}}
			if err := e.g.Create(&posts).Error; !errors.Is(err, nonce.ErrDisabled) {
				t.Errorf("%s: batch create error %v", name, err)
			}
			if !posts[0].ID.IsZero() || !posts[1].ID.IsZero() {
				t.Errorf("%s: IDs left behind: %v", name, posts)
			}
			for _, table := range []string{"users", "posts"} {
				if n := at.Count(t, db, e.table(table)); n != 0 {
					t.Errorf("%s: %d rows in %s", name, n, table)
				}
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
		if err := oncegorm.Prepare(e.g.Table(name), &Note{}); err != nil {
			t.Fatal(err)
		}
		if err := e.g.Table(name).AutoMigrate(&Note{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.g.Migrator().DropTable(name) })
		c := at.Columns(t, db, name)["id"]
		if want := at.WantColumn(db.Dialect, once.Options{}); c.Type != want.Type || !c.PK || c.Extra != "" {
			t.Errorf("id column %+v, want %s primary key without default", c, want.Type)
		}
		n := Note{Body: "x"}
		if err := e.g.Table(name).Create(&n).Error; err != nil || n.ID.IsZero() {
			t.Errorf("create: %v %v", n.ID, err)
		}
	})
}
