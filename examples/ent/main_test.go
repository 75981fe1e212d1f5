package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		err := run(context.Background(), &out, db.url, "")
		require.NoError(t, err, "output:\n%s", out.String())
		rows := regexp.MustCompile(`(?m)^\{"id":"pst_[A-Za-z0-9_-]{11}","title":"[^"]+","author_id":"usr_[A-Za-z0-9_-]{11}".*\}  \d+$`).FindAllString(out.String(), -1)
		assert.Len(t, rows, 2, "post lines in the output:\n%s", out.String())
		assert.True(t, strings.HasPrefix(out.String(), "machine ID "), "output:\n%s\nwant it to begin \"machine ID \"", out.String())
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
	require.NoError(t, c.Schema.Create(context.Background()), "%s: Schema.Create", db.name)
	l.take()
	return c, l
}

// key masks the test IDs (a fixed key: never in production).
var key = []byte("once ent example tests, fixed key, 32+ bytes")

// generator sets the default generator to a factory that holds a lease
// (activated) or waits for one (not activated) until the test ends.
func generator(t *testing.T, activated bool) *nonce.Factory {
	t.Helper()
	f, err := nonce.New(nonce.Config{BaseKey: key})
	require.NoError(t, err, "nonce.New")
	if activated {
		require.NoError(t, f.Activate(7, time.Time{}, time.Time{}), "Activate")
	}
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
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
		require.NoError(t, err, "create ada")
		stmts := l.take()
		require.False(t, ada.ID.IsZero(), "user ID %v; want a non-zero ID", ada.ID)
		require.Len(t, stmts, 1, "user ID %v; want one INSERT carrying it", ada.ID)
		require.Contains(t, stmts[0], "INSERT", "user ID %v; want one INSERT carrying it", ada.ID)
		require.Contains(t, stmts[0], ada.ID.String(), "user ID %v; want one INSERT carrying it", ada.ID)
		grace, err := c.User.Create().SetEmail("grace@example.com").Save(ctx)
		require.NoError(t, err, "create grace")
		l.take()

		// Bulk create: the hook fills each zero ID, a caller's ID is kept.
		kept := ids.PostID(once.FromUint64(42))
		posts, err := c.Post.CreateBulk(
			c.Post.Create().SetTitle("one").SetAuthor(ada),
			c.Post.Create().SetTitle("two").SetAuthorID(ada.ID).SetEditorID(grace.ID).SetID(kept),
			c.Post.Create().SetTitle("three").SetAuthorID(grace.ID),
		).Save(ctx)
		require.NoError(t, err, "bulk create")
		assert.Len(t, l.take(), 1, "bulk create: want one INSERT")
		require.Len(t, posts, 3, "bulk IDs: %v", posts)
		require.False(t, posts[0].ID.IsZero(), "bulk IDs: %v; want post 0's filled", posts)
		require.Equal(t, kept, posts[1].ID, "bulk IDs: %v; want post 1's kept: got %v, want %v", posts, posts[1].ID, kept)
		require.False(t, posts[2].ID.IsZero(), "bulk IDs: %v; want post 2's filled", posts)
		require.NotEqual(t, posts[0].ID, posts[2].ID, "bulk IDs: %v; want posts 0 and 2 apart", posts)

		// The table holds the bigint; the API shows the masked text.
		var stored int64
		if assert.NoError(t, db.sql.QueryRowContext(ctx, rebind(db.dialect, "SELECT id FROM posts WHERE title = ?"), "one").Scan(&stored), "stored ID of post one") {
			assert.Equal(t, posts[0].ID.Int64(), stored, "stored ID of post one")
		}
		if s := posts[0].ID.String(); assert.True(t, strings.HasPrefix(s, "pst_"), "post ID text %q: want pst_ and a masked value", s) {
			assert.NotEqual(t, once.ID(posts[0].ID).String(), s[4:], "post ID text %q: want pst_ and a masked value", s)
		}

		// Query by the text an API receives.
		id, err := once.ParseAs[ids.PostID](posts[0].ID.String())
		require.NoError(t, err, "ParseAs(%q)", posts[0].ID.String())
		got, err := c.Post.Get(ctx, id)
		if assert.NoError(t, err, "Get(%v)", id) {
			assert.Equal(t, "one", got.Title, "Get: %+v", got)
			assert.Equal(t, ada.ID, got.AuthorID, "Get: %+v; want author %v", got, ada.ID)
			assert.Nil(t, got.EditorID, "Get: %+v; want no editor", got)
		}
		n, err := c.Post.Query().Where(post.IDIn(posts[0].ID, kept)).Count(ctx)
		if assert.NoError(t, err, "IDIn") {
			assert.Equal(t, 2, n, "IDIn")
		}

		// Edges: has-many, belongs-to through the foreign key, nullable
		// foreign key, eager loading.
		adas, err := ada.QueryPosts().Order(post.ByTitle()).All(ctx)
		if assert.NoError(t, err, "ada's posts") && assert.Len(t, adas, 2, "ada's posts") {
			assert.Equal(t, posts[0].ID, adas[0].ID, "ada's posts: %v; want %v first", adas, posts[0].ID)
			assert.Equal(t, kept, adas[1].ID, "ada's posts: %v; want %v second", adas, kept)
		}
		edited, err := c.User.Query().Where(user.HasEditedWith(post.ID(kept))).Only(ctx)
		if assert.NoError(t, err, "editor of %v", kept) {
			assert.Equal(t, grace.ID, edited.ID, "editor of %v: %v, want %v", kept, edited, grace.ID)
		}
		two, err := c.Post.Query().Where(post.ID(kept)).WithAuthor().WithEditor().Only(ctx)
		require.NoError(t, err, "post two with edges")
		require.NotNil(t, two.Edges.Author, "post two with edges: %+v; want the author loaded", two)
		require.Equal(t, ada.ID, two.Edges.Author.ID, "post two with edges: %+v; want author %v", two, ada.ID)
		require.NotNil(t, two.EditorID, "post two with edges: %+v; want an editor ID", two)
		require.Equal(t, grace.ID, *two.EditorID, "post two with edges: %+v; want editor ID %v", two, grace.ID)
		require.NotNil(t, two.Edges.Editor, "post two with edges: %+v; want the editor loaded", two)
		require.Equal(t, grace.ID, two.Edges.Editor.ID, "post two with edges: %+v; want editor %v", two, grace.ID)
		nulls, err := c.Post.Query().Where(post.EditorIDIsNil()).Count(ctx)
		if assert.NoError(t, err, "posts without editor") {
			assert.Equal(t, 2, nulls, "posts without editor")
		}

		// JSON: IDs as their text, the nullable one absent when nil, and
		// back.
		js, err := json.Marshal(two)
		require.NoError(t, err, "JSON of post two")
		want := fmt.Sprintf(`{"id":%q,"title":"two","author_id":%q,"editor_id":%q,`, kept, ada.ID, grace.ID)
		assert.True(t, strings.HasPrefix(string(js), want), "JSON %s, want it to begin %s", js, want)
		var back ent.Post
		if assert.NoError(t, json.Unmarshal(js, &back), "JSON back from %s", js) {
			assert.Equal(t, kept, back.ID, "JSON back: %+v; want ID %v", back, kept)
			assert.Equal(t, ada.ID, back.AuthorID, "JSON back: %+v; want author %v", back, ada.ID)
			if assert.NotNil(t, back.EditorID, "JSON back: %+v; want an editor", back) {
				assert.Equal(t, grace.ID, *back.EditorID, "JSON back: %+v; want editor %v", back, grace.ID)
			}
		}
		if js, err := json.Marshal(got); assert.NoError(t, err, "JSON of a post without editor") {
			assert.NotContains(t, string(js), "editor_id", "JSON of a post without editor")
		}

		// Text-stored keys, many-to-many through a join table of both IDs.
		tags, err := c.Tag.CreateBulk(c.Tag.Create().SetName("go"), c.Tag.Create().SetName("sql")).Save(ctx)
		require.NoError(t, err, "create tags")
		require.NoError(t, c.Post.UpdateOneID(kept).AddTags(tags...).Exec(ctx), "tag post two")
		var storedTag string
		if assert.NoError(t, db.sql.QueryRowContext(ctx, rebind(db.dialect, "SELECT id FROM tags WHERE name = ?"), "go").Scan(&storedTag), "stored tag ID") {
			assert.Equal(t, tags[0].ID.String(), "tag_"+storedTag, "stored tag ID %q, want the text of %s", storedTag, tags[0].ID)
		}
		tagID, err := once.ParseAs[ids.TagID](tags[1].ID.String())
		require.NoError(t, err, "ParseAs(%q)", tags[1].ID.String())
		tagged, err := c.Tag.Query().Where(tag.ID(tagID)).QueryPosts().Only(ctx)
		if assert.NoError(t, err, "posts tagged %s", tagID) {
			assert.Equal(t, kept, tagged.ID, "posts tagged %s: %v, want %v", tagID, tagged, kept)
		}
		ptags, err := c.Post.QueryTags(two).Order(tag.ByName()).All(ctx)
		if assert.NoError(t, err, "tags of post two") && assert.Len(t, ptags, 2, "tags of post two") {
			assert.Equal(t, tags[0].ID, ptags[0].ID, "tags of post two: %v; want %v first", ptags, tags[0].ID)
			assert.Equal(t, tags[1].ID, ptags[1].ID, "tags of post two: %v; want %v second", ptags, tags[1].ID)
		}
		// url64 is case sensitive: keys that differ in case are two keys.
		upper, lower := once.MustParseAs[ids.TagID]("tag_AAAAAAAAAAE"), once.MustParseAs[ids.TagID]("tag_aAAAAAAAAAE")
		err = c.Tag.CreateBulk(c.Tag.Create().SetID(upper).SetName("upper"), c.Tag.Create().SetID(lower).SetName("lower")).Exec(ctx)
		require.NoError(t, err, "keys that differ in case")
		if got, err := c.Tag.Get(ctx, lower); assert.NoError(t, err, "Get(%s)", lower) {
			assert.Equal(t, "lower", got.Name, "Get(%s): %v", lower, got)
		}
		if js, err := json.Marshal(tags[0]); assert.NoError(t, err, "tag JSON") {
			assert.True(t, strings.HasPrefix(string(js), `{"id":"tag_`), "tag JSON %s, want it to begin {\"id\":\"tag_", js)
		}

		// Updates keep the ID and change foreign keys.
		require.NoError(t, c.Post.UpdateOneID(posts[0].ID).SetEditorID(ada.ID).Exec(ctx), "set the editor of post one")
		if p, err := c.Post.Get(ctx, posts[0].ID); assert.NoError(t, err, "after update") && assert.NotNil(t, p.EditorID, "after update: %+v; want an editor", p) {
			assert.Equal(t, ada.ID, *p.EditorID, "after update: %+v; want editor %v", p, ada.ID)
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
		require.NoError(t, err, "create ada")
		for _, cs := range []struct {
			name string
			set  func(t *testing.T)
			want error
		}{
			{"never activated", func(t *testing.T) { generator(t, false) }, nonce.ErrDisabled},
			{"disabled", func(t *testing.T) { generator(t, true).Disable() }, nonce.ErrDisabled},
			{"no generator", func(t *testing.T) { once.DefaultBinding().Set(nil) }, once.ErrNoGenerator},
		} {
			t.Run(cs.name, func(t *testing.T) {
				cs.set(t)
				l.take()
				u, err := c.User.Create().SetEmail("x@example.com").Save(ctx)
				if assert.ErrorIs(t, err, cs.want, "create: %v", u) {
					assert.True(t, strings.HasPrefix(err.Error(), "oncent: new ID for User: "), "create: %v; want it to begin \"oncent: new ID for User: \"", err)
				}
				assert.Nil(t, u, "create: %v, %v; want no user", u, err)
				posts, err := c.Post.CreateBulk(
					c.Post.Create().SetTitle("a").SetAuthor(ada).SetID(ids.PostID(once.FromUint64(5))),
					c.Post.Create().SetTitle("b").SetAuthor(ada),
				).Save(ctx)
				assert.ErrorIs(t, err, cs.want, "bulk create: %v", posts)
				assert.Nil(t, posts, "bulk create: %v, %v; want no posts", posts, err)
				assert.Empty(t, l.take(), "ran SQL")
				users, _ := c.User.Query().Count(ctx)
				posts2, _ := c.Post.Query().Count(ctx)
				assert.Equal(t, 1, users, "%d users, %d posts; want 1 and 0", users, posts2)
				assert.Equal(t, 0, posts2, "%d users, %d posts; want 1 and 0", users, posts2)
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
		require.NoError(t, err, "catalog query")
		defer rows.Close()
		got := map[string]string{}
		for rows.Next() {
			var col, typ string
			require.NoError(t, rows.Scan(&col, &typ), "catalog row")
			// MariaDB spells bigint with its display width.
			got[strings.ToLower(col)] = strings.Replace(strings.ToLower(typ), "bigint(20)", "bigint", 1)
		}
		want := map[string]string{"postgres": "bigintno", "mysql": "bigint", "sqlite3": "integer"}[db.dialect]
		wantText := map[string]string{"postgres": "character varying(11)no", "mysql": "varbinary(11)", "sqlite3": "text"}[db.dialect]
		for col, want := range map[string]string{"users.id": want, "posts.id": want, "posts.author_id": want, "posts.editor_id": want,
			"post_tags.post_id": want, "tags.id": wantText, "post_tags.tag_id": wantText} {
			assert.Equal(t, want, got[col], "%s (all: %v)", col, got)
		}
	})
}
