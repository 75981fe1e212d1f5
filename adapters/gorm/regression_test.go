package oncegorm_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/once"
)

// TestRelations: the custom-key cases GORM users report, on each
// database: preload of has-many through typed and *T foreign keys,
// belongs-to, many-to-many with text keys from both sides, Joins,
// Association Append / Replace / Delete / Count, and a struct key type as
// a foreign key next to its relation (GORM #7040: "define a valid foreign
// key for relations or implement the Valuer/Scanner interface").
func TestRelations(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		ada, grace := User{Email: "ada@example.com"}, User{Email: "grace@example.com"}
		require.NoError(t, e.g.Create([]*User{&ada, &grace}).Error)
		posts := []Post{
			{Title: "one", AuthorID: ada.ID, EditorID: &grace.ID},
			{Title: "two", AuthorID: ada.ID},
			{Title: "three", AuthorID: grace.ID, EditorID: &grace.ID},
		}
		require.NoError(t, e.g.Create(&posts).Error)

		var users []User
		require.NoError(t, e.g.Preload("Posts", func(db *gorm.DB) *gorm.DB { return db.Order("title") }).
			Preload("Edited", func(db *gorm.DB) *gorm.DB { return db.Order("title") }).Order("email").Find(&users).Error)
		if assert.Len(t, users, 2, "preload through typed and *T foreign keys") {
			if assert.Len(t, users[0].Posts, 2, "preload through the typed foreign key: %s", users[0].Email) {
				assert.Equal(t, posts[0].ID, users[0].Posts[0].ID, "preload through the typed foreign key: %s", users[0].Email)
			}
			assert.Empty(t, users[0].Edited, "preload through the *T foreign key: %s", users[0].Email)
			assert.Len(t, users[1].Posts, 1, "preload through the typed foreign key: %s", users[1].Email)
			if assert.Len(t, users[1].Edited, 2, "preload through the *T foreign key: %s", users[1].Email) {
				assert.Equal(t, posts[0].ID, users[1].Edited[0].ID, "preload through the *T foreign key: %s", users[1].Email)
			}
		}
		var joined []Post
		require.NoError(t, e.g.Joins("Author").Joins("Editor").Order(e.table("posts")+".title").Find(&joined).Error)
		if assert.Len(t, joined, 3, "Joins") {
			if assert.NotNil(t, joined[0].Author, "Joins: first post's author") {
				assert.Equal(t, ada.ID, joined[0].Author.ID, "Joins: first post's author")
			}
			if assert.NotNil(t, joined[0].Editor, "Joins: first post's editor") {
				assert.Equal(t, grace.ID, joined[0].Editor.ID, "Joins: first post's editor")
			}
			assert.Nil(t, joined[2].Editor, "Joins: third post's editor")
		}

		// Associations: Append creates the new records (their keys filled)
		// and links them; Replace and Delete unlink by key.
		p := posts[0]
		require.NoError(t, e.g.Model(&p).Association("Tags").Append([]Tag{{Name: "go"}, {Name: "sql"}}))
		require.Len(t, p.Tags, 2, "Append")
		require.False(t, p.Tags[0].ID.IsZero() || p.Tags[1].ID.IsZero(), "Append: %+v", p.Tags)
		assert.Equal(t, int64(2), e.g.Model(&p).Association("Tags").Count(), "Count after Append")
		// Pointers, so that the new tag's key reaches ids (a []Tag would
		// give GORM copies). GORM upserts the rows it links, first's with
		// its key: a preset ID, kept with the opt-in.
		first, ids := p.Tags[0], Tag{Name: "ids"}
		require.NoError(t, e.g.WithContext(keepPresets).Model(&p).Association("Tags").Replace([]*Tag{&first, &ids}))
		assert.False(t, ids.ID.IsZero(), "Replace left the new tag without a key")
		var names []string
		for _, tg := range reload(t, e, p.ID).Tags {
			names = append(names, tg.Name)
		}
		slices.Sort(names)
		assert.Equal(t, []string{"go", "ids"}, names, "tags after Replace")
		require.NoError(t, e.g.Model(&p).Association("Tags").Delete(&ids))
		if got := reload(t, e, p.ID).Tags; assert.Len(t, got, 1, "tags after Delete") {
			assert.Equal(t, "go", got[0].Name, "tags after Delete")
		}
		var tagged []Tag
		if assert.NoError(t, e.g.Model(&Tag{}).Where("name = ?", "go").Preload(clause.Associations).Find(&tagged).Error, "tag by name") {
			assert.Len(t, tagged, 1, "tag by name")
		}
		// Has-many Append through the *T foreign key.
		require.NoError(t, e.g.WithContext(keepPresets).Model(&ada).Association("Edited").Append(&posts[1]))
		if got := reload(t, e, posts[1].ID); assert.NotNil(t, got.EditorID, "Append to a *T has-many: editor") {
			assert.Equal(t, ada.ID, *got.EditorID, "Append to a *T has-many: editor")
		}
		require.NoError(t, e.g.Model(&ada).Association("Edited").Clear())
		assert.Nil(t, reload(t, e, posts[1].ID).EditorID, "Clear of a *T has-many: editor, want NULL")

		// Key types as values: Pluck into []UserID, IN with a []UserID.
		var authors []at.UserID
		if assert.NoError(t, e.g.Model(&Post{}).Distinct("author_id").Order("author_id").Pluck("author_id", &authors).Error, "Pluck") {
			assert.Len(t, authors, 2, "Pluck")
		}
		var n int64
		if assert.NoError(t, e.g.Model(&Post{}).Where("author_id IN ?", []at.UserID{ada.ID, grace.ID}).Count(&n).Error, "IN with a []UserID") {
			assert.Equal(t, int64(3), n, "IN with a []UserID")
		}
	})
}

func reload(t *testing.T, e *env, id at.PostID) Post {
	t.Helper()
	var p Post
	require.NoError(t, e.g.Preload("Tags").First(&p, "id = ?", id).Error)
	return p
}

// TestZeroKey: Save and FirstOrCreate of a struct whose key is zero create
// the row with a filled key; FirstOrCreate of an existing row answers that
// row's key. A BeforeCreate hook sees its row's key in every row of a
// batch (GORM #4170 is a hook that set a column in the first row only).
func TestZeroKey(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		u := User{Email: "ada@example.com"}
		require.NoError(t, e.g.Save(&u).Error, "Save with a zero key")
		require.False(t, u.ID.IsZero(), "Save with a zero key: ID")
		require.Equal(t, u.ID, u.idInHook, "Save with a zero key: the ID the hook saw")
		u.Email = "ada.l@example.com"
		require.NoError(t, e.g.Save(&u).Error)
		assert.Equal(t, 1, at.Count(t, db, e.table("users")), "Save of an existing row: rows")

		var g User
		require.NoError(t, e.g.Where(User{Email: "grace@example.com"}).FirstOrCreate(&g).Error, "FirstOrCreate, new")
		require.False(t, g.ID.IsZero(), "FirstOrCreate, new: ID")
		var again User
		if assert.NoError(t, e.g.Where(User{Email: "grace@example.com"}).FirstOrCreate(&again).Error, "FirstOrCreate, existing") {
			assert.Equal(t, g.ID, again.ID, "FirstOrCreate, existing")
		}
		var attrs User
		if assert.NoError(t, e.g.WithContext(keepPresets).Where(User{Email: "edsger@example.com"}).Attrs(User{ID: at.UserID(once.FromUint64(99))}).FirstOrCreate(&attrs).Error, "FirstOrCreate with a key in Attrs") {
			assert.Equal(t, at.UserID(once.FromUint64(99)), attrs.ID, "FirstOrCreate with a key in Attrs")
		}

		batch := []*User{{Email: "a@example.com"}, {Email: "b@example.com"}, {Email: "c@example.com"}}
		require.NoError(t, e.g.Create(&batch).Error)
		seen := map[at.UserID]bool{}
		for i, b := range batch {
			assert.False(t, b.ID.IsZero(), "batch row %d: key", i)
			assert.Equal(t, b.ID, b.idInHook, "batch row %d: the key the hook saw", i)
			assert.False(t, seen[b.ID], "batch row %d: key %v seen in an earlier row", i, b.ID)
			seen[b.ID] = true
		}
		require.NoError(t, e.g.CreateInBatches([]User{{Email: "d@example.com"}, {Email: "e@example.com"}, {Email: "f@example.com"}}, 2).Error)
		assert.Equal(t, 9, at.Count(t, db, e.table("users")), "users")
	})
}
