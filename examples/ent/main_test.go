package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/once-go/once/examples/ent/ent"
	"github.com/once-go/once/examples/ent/ent/post"
	"github.com/once-go/once/examples/ent/ent/tag"
	"github.com/once-go/once/examples/ent/ent/user"
	"github.com/once-go/once/examples/ent/ids"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestRun runs the program, lease manager included, on each database.
func TestRun(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		var out bytes.Buffer
		if err := run(context.Background(), &out, db.url, ""); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		rows := regexp.MustCompile(`(?m)^\{"id":"pst_[A-Za-z0-9_-]{11}","title":"[^"]+","author_id":"usr_[A-Za-z0-9_-]{11}".*\}  \d+$`).FindAllString(out.String(), -1)
		if len(rows) != 2 || !strings.HasPrefix(out.String(), "machine ID ") {
			t.Errorf("output:\n%s", out.String())
		}
	})
}

// queryLog records the statements ent runs.
type queryLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *queryLog) log(_ context.Context, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, fmt.Sprint(v...))
}

func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stmts
	l.stmts = nil
	return s
}

// client migrates ent's tables on db and returns a client whose statements
// log records.
func client(t *testing.T, db testDB) (*ent.Client, *queryLog) {
	t.Helper()
	l := &queryLog{}
	c := ent.NewClient(ent.Driver(dialect.DebugWithContext(entsql.OpenDB(db.dialect, db.sql), l.log)))
	if err := c.Schema.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.take()
	return c, l
}

// key masks the test IDs (a fixed key: never in production).
var key = []byte("once ent example tests, fixed key, 32+ bytes")

// generator sets the default generator to a factory that holds a lease
// (activated) or waits for one (not activated) until the test ends.
func generator(t *testing.T, activated bool) *nonce.Factory {
	t.Helper()
	f, err := nonce.New(nonce.Config{MachineID: 7, BaseKey: key, AwaitLease: true})
	if err != nil {
		t.Fatal(err)
	}
	if activated {
		if err := f.Activate(7, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
	return f
}

// TestEnt: create, bulk create, edges, queries by ID and JSON, on each
// database.
func TestEnt(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, l := client(t, db)

		ada, err := c.User.Create().SetEmail("ada@example.com").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stmts := l.take()
		if ada.ID.IsZero() || len(stmts) != 1 || !strings.Contains(stmts[0], "INSERT") ||
			!strings.Contains(stmts[0], ada.ID.String()) {
			t.Fatalf("user ID %v; want one INSERT carrying it, ran %q", ada.ID, stmts)
		}
		grace, err := c.User.Create().SetEmail("grace@example.com").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.take()

		// Bulk create: the hook fills each zero ID, a caller's ID is kept.
		kept := ids.PostID(once.FromUint64(42))
		posts, err := c.Post.CreateBulk(
			c.Post.Create().SetTitle("one").SetAuthor(ada),
			c.Post.Create().SetTitle("two").SetAuthorID(ada.ID).SetEditorID(grace.ID).SetID(kept),
			c.Post.Create().SetTitle("three").SetAuthorID(grace.ID),
		).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stmts := l.take(); len(stmts) != 1 {
			t.Errorf("bulk create ran %d statements, want one INSERT: %q", len(stmts), stmts)
		}
		if len(posts) != 3 || posts[0].ID.IsZero() || posts[1].ID != kept || posts[2].ID.IsZero() ||
			posts[0].ID == posts[2].ID {
			t.Fatalf("bulk IDs: %v", posts)
		}

		// The table holds the bigint; the API shows the masked text.
		var stored int64
		if err := db.sql.QueryRowContext(ctx, rebind(db.dialect, "SELECT id FROM posts WHERE title = ?"), "one").Scan(&stored); err != nil || stored != posts[0].ID.Int64() {
			t.Errorf("stored %d (%v), want %d", stored, err, posts[0].ID.Int64())
		}
		if s := posts[0].ID.String(); !strings.HasPrefix(s, "pst_") || s[4:] == once.ID(posts[0].ID).String() {
			t.Errorf("post ID text %q: want pst_ and a masked value", s)
		}

		// Query by the text an API receives.
		id, err := once.ParseAs[ids.PostID](posts[0].ID.String())
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Post.Get(ctx, id)
		if err != nil || got.Title != "one" || got.AuthorID != ada.ID || got.EditorID != nil {
			t.Errorf("Get: %+v (%v)", got, err)
		}
		n, err := c.Post.Query().Where(post.IDIn(posts[0].ID, kept)).Count(ctx)
		if err != nil || n != 2 {
			t.Errorf("IDIn: %d (%v)", n, err)
		}

		// Edges: has-many, belongs-to through the foreign key, nullable
		// foreign key, eager loading.
		adas, err := ada.QueryPosts().Order(post.ByTitle()).All(ctx)
		if err != nil || len(adas) != 2 || adas[0].ID != posts[0].ID || adas[1].ID != kept {
			t.Errorf("ada's posts: %v (%v)", adas, err)
		}
		edited, err := c.User.Query().Where(user.HasEditedWith(post.ID(kept))).Only(ctx)
		if err != nil || edited.ID != grace.ID {
			t.Errorf("editor of %v: %v (%v)", kept, edited, err)
		}
		two, err := c.Post.Query().Where(post.ID(kept)).WithAuthor().WithEditor().Only(ctx)
		if err != nil || two.Edges.Author == nil || two.Edges.Author.ID != ada.ID ||
			two.EditorID == nil || *two.EditorID != grace.ID || two.Edges.Editor == nil || two.Edges.Editor.ID != grace.ID {
			t.Fatalf("post two with edges: %+v (%v)", two, err)
		}
		nulls, err := c.Post.Query().Where(post.EditorIDIsNil()).Count(ctx)
		if err != nil || nulls != 2 {
			t.Errorf("posts without editor: %d (%v), want 2", nulls, err)
		}

		// JSON: IDs as their text, the nullable one absent when nil, and
		// back.
		js, err := json.Marshal(two)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"id":%q,"title":"two","author_id":%q,"editor_id":%q,`, kept, ada.ID, grace.ID)
		if !strings.HasPrefix(string(js), want) {
			t.Errorf("JSON %s, want it to begin %s", js, want)
		}
		var back ent.Post
		if err := json.Unmarshal(js, &back); err != nil || back.ID != kept || back.AuthorID != ada.ID || *back.EditorID != grace.ID {
			t.Errorf("JSON back: %+v (%v)", back, err)
		}
		if js, err := json.Marshal(got); err != nil || strings.Contains(string(js), "editor_id") {
			t.Errorf("JSON of a post without editor: %s (%v)", js, err)
		}

		// Text-stored keys, many-to-many through a join table of both IDs.
		tags, err := c.Tag.CreateBulk(c.Tag.Create().SetName("go"), c.Tag.Create().SetName("sql")).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Post.UpdateOneID(kept).AddTags(tags...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		var storedTag string
		if err := db.sql.QueryRowContext(ctx, rebind(db.dialect, "SELECT id FROM tags WHERE name = ?"), "go").Scan(&storedTag); err != nil ||
			"tag_"+storedTag != tags[0].ID.String() {
			t.Errorf("stored tag ID %q (%v), want the text of %s", storedTag, err, tags[0].ID)
		}
		tagID, err := once.ParseAs[ids.TagID](tags[1].ID.String())
		if err != nil {
			t.Fatal(err)
		}
		tagged, err := c.Tag.Query().Where(tag.ID(tagID)).QueryPosts().Only(ctx)
		if err != nil || tagged.ID != kept {
			t.Errorf("posts tagged %s: %v (%v)", tagID, tagged, err)
		}
		ptags, err := c.Post.QueryTags(two).Order(tag.ByName()).All(ctx)
		if err != nil || len(ptags) != 2 || ptags[0].ID != tags[0].ID || ptags[1].ID != tags[1].ID {
			t.Errorf("tags of post two: %v (%v)", ptags, err)
		}
		// url64 is case sensitive: keys that differ in case are two keys.
		upper, lower := once.MustParseAs[ids.TagID]("tag_AAAAAAAAAAE"), once.MustParseAs[ids.TagID]("tag_aAAAAAAAAAE")
		if err := c.Tag.CreateBulk(c.Tag.Create().SetID(upper).SetName("upper"), c.Tag.Create().SetID(lower).SetName("lower")).Exec(ctx); err != nil {
			t.Fatalf("keys that differ in case: %v", err)
		}
		if got, err := c.Tag.Get(ctx, lower); err != nil || got.Name != "lower" {
			t.Errorf("Get(%s): %v (%v)", lower, got, err)
		}
		if js, err := json.Marshal(tags[0]); err != nil || !strings.HasPrefix(string(js), `{"id":"tag_`) {
			t.Errorf("tag JSON %s (%v)", js, err)
		}

		// Updates keep the ID and change foreign keys.
		if err := c.Post.UpdateOneID(posts[0].ID).SetEditorID(ada.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err := c.Post.Get(ctx, posts[0].ID); err != nil || p.EditorID == nil || *p.EditorID != ada.ID {
			t.Errorf("after update: %+v (%v)", p, err)
		}
	})
}

// TestNoID: without a lease or a generator, creates fail with the
// generator's error before any SQL runs, and no row is written.
func TestNoID(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, l := client(t, db)
		ada, err := c.User.Create().SetEmail("ada@example.com").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range []struct {
			name string
			set  func(t *testing.T)
			want error
		}{
			{"never activated", func(t *testing.T) { generator(t, false) }, nonce.ErrDisabled},
			{"disabled", func(t *testing.T) { generator(t, true).Disable() }, nonce.ErrDisabled},
			{"no generator", func(t *testing.T) { once.SetGenerator(nil) }, once.ErrNoGenerator},
		} {
			t.Run(cs.name, func(t *testing.T) {
				cs.set(t)
				l.take()
				u, err := c.User.Create().SetEmail("x@example.com").Save(ctx)
				if !errors.Is(err, cs.want) || !strings.HasPrefix(err.Error(), "oncent: new ID for User: ") || u != nil {
					t.Errorf("create: %v, %v; want %v", u, err, cs.want)
				}
				posts, err := c.Post.CreateBulk(
					c.Post.Create().SetTitle("a").SetAuthor(ada).SetID(ids.PostID(once.FromUint64(5))),
					c.Post.Create().SetTitle("b").SetAuthor(ada),
				).Save(ctx)
				if !errors.Is(err, cs.want) || posts != nil {
					t.Errorf("bulk create: %v, %v; want %v", posts, err, cs.want)
				}
				if s := l.take(); len(s) != 0 {
					t.Errorf("ran SQL: %q", s)
				}
				users, _ := c.User.Query().Count(ctx)
				posts2, _ := c.Post.Query().Count(ctx)
				if users != 1 || posts2 != 0 {
					t.Errorf("%d users, %d posts; want 1 and 0", users, posts2)
				}
			})
		}
	})
}

// TestColumns: the catalog shows bigint keys and foreign keys, text keys
// that compare exactly, no default and no auto-increment.
func TestColumns(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		client(t, db)
		var q string
		switch db.dialect {
		case "postgres":
			q = `SELECT table_name || '.' || column_name,
				data_type || coalesce('(' || character_maximum_length || ')', '') || coalesce(column_default, '') || is_identity
				FROM information_schema.columns WHERE table_schema = current_schema() AND column_name LIKE '%id'`
		case "mysql":
			q = `SELECT concat(table_name, '.', column_name), concat(column_type, coalesce(nullif(column_default, 'NULL'), ''), extra)
				FROM information_schema.columns WHERE table_schema = database() AND column_name LIKE '%id'`
		default:
			q = `SELECT m.name || '.' || c.name, c.type || coalesce(c.dflt_value, '')
				FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name LIKE '%id'`
		}
		rows, err := db.sql.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[string]string{}
		for rows.Next() {
			var col, typ string
			if err := rows.Scan(&col, &typ); err != nil {
				t.Fatal(err)
			}
			// MariaDB spells bigint with its display width.
			got[strings.ToLower(col)] = strings.Replace(strings.ToLower(typ), "bigint(20)", "bigint", 1)
		}
		want := map[string]string{"postgres": "bigintno", "mysql": "bigint", "sqlite3": "integer"}[db.dialect]
		wantText := map[string]string{"postgres": "character varying(11)no", "mysql": "varbinary(11)", "sqlite3": "text"}[db.dialect]
		for col, want := range map[string]string{"users.id": want, "posts.id": want, "posts.author_id": want, "posts.editor_id": want,
			"post_tags.post_id": want, "tags.id": wantText, "post_tags.tag_id": wantText} {
			if got[col] != want {
				t.Errorf("%s: %q, want %q (all: %v)", col, got[col], want, got)
			}
		}
	})
}
