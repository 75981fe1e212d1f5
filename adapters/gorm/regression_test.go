package oncegorm_test

import (
	"slices"
	"testing"

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
		if err := e.g.Create([]*User{&ada, &grace}).Error; err != nil {
			t.Fatal(err)
		}
		posts := []Post{
			{Title: "one", AuthorID: ada.ID, EditorID: &grace.ID},
			{Title: "two", AuthorID: ada.ID},
			{Title: "three", AuthorID: grace.ID, EditorID: &grace.ID},
		}
		if err := e.g.Create(&posts).Error; err != nil {
			t.Fatal(err)
		}

		var users []User
		if err := e.g.Preload("Posts", func(db *gorm.DB) *gorm.DB { return db.Order("title") }).
			Preload("Edited", func(db *gorm.DB) *gorm.DB { return db.Order("title") }).Order("email").Find(&users).Error; err != nil {
			t.Fatal(err)
		}
		if len(users) != 2 || len(users[0].Posts) != 2 || users[0].Posts[0].ID != posts[0].ID || len(users[0].Edited) != 0 ||
			len(users[1].Posts) != 1 || len(users[1].Edited) != 2 || users[1].Edited[0].ID != posts[0].ID {
			t.Errorf("preload through typed and *T foreign keys: %+v", users)
		}
		var joined []Post
		if err := e.g.Joins("Author").Joins("Editor").Order(e.table("posts") + ".title").Find(&joined).Error; err != nil {
			t.Fatal(err)
		}
		if len(joined) != 3 || joined[0].Author == nil || joined[0].Author.ID != ada.ID || joined[0].Editor == nil ||
			joined[0].Editor.ID != grace.ID || joined[2].Editor != nil {
			t.Errorf("Joins: %+v", joined)
		}

		// Associations: Append creates the new records (their keys filled)
		// and links them; Replace and Delete unlink by key.
		p := posts[0]
		if err := e.g.Model(&p).Association("Tags").Append([]Tag{{Name: "go"}, {Name: "sql"}}); err != nil {
			t.Fatal(err)
		}
		if len(p.Tags) != 2 || p.Tags[0].ID.IsZero() || p.Tags[1].ID.IsZero() {
			t.Fatalf("Append: %+v", p.Tags)
		}
		if n := e.g.Model(&p).Association("Tags").Count(); n != 2 {
			t.Errorf("Count after Append: %d", n)
		}
		// Pointers, so that the new tag's key reaches ids (a []Tag would
		// give GORM copies).
		first, ids := p.Tags[0], Tag{Name: "ids"}
		if err := e.g.Model(&p).Association("Tags").Replace([]*Tag{&first, &ids}); err != nil {
			t.Fatal(err)
		}
		if ids.ID.IsZero() {
			t.Errorf("Replace left the new tag without a key")
		}
		var names []string
		for _, tg := range reload(t, e, p.ID).Tags {
			names = append(names, tg.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"go", "ids"}) {
			t.Errorf("tags after Replace: %v", names)
		}
		if err := e.g.Model(&p).Association("Tags").Delete(&ids); err != nil {
			t.Fatal(err)
		}
		if got := reload(t, e, p.ID).Tags; len(got) != 1 || got[0].Name != "go" {
			t.Errorf("tags after Delete: %+v", got)
		}
		var tagged []Tag
		if err := e.g.Model(&Tag{}).Where("name = ?", "go").Preload(clause.Associations).Find(&tagged).Error; err != nil || len(tagged) != 1 {
			t.Errorf("tag by name: %+v (%v)", tagged, err)
		}
		// Has-many Append through the *T foreign key.
		if err := e.g.Model(&ada).Association("Edited").Append(&posts[1]); err != nil {
			t.Fatal(err)
		}
		if got := reload(t, e, posts[1].ID); got.EditorID == nil || *got.EditorID != ada.ID {
			t.Errorf("Append to a *T has-many: editor %v", got.EditorID)
		}
		if err := e.g.Model(&ada).Association("Edited").Clear(); err != nil {
			t.Fatal(err)
		}
		if got := reload(t, e, posts[1].ID); got.EditorID != nil {
			t.Errorf("Clear of a *T has-many: editor %v, want NULL", got.EditorID)
		}

		// Key types as values: Pluck into []UserID, IN with a []UserID.
		var authors []at.UserID
		if err := e.g.Model(&Post{}).Distinct("author_id").Order("author_id").Pluck("author_id", &authors).Error; err != nil || len(authors) != 2 {
			t.Errorf("Pluck: %v (%v)", authors, err)
		}
		var n int64
		if err := e.g.Model(&Post{}).Where("author_id IN ?", []at.UserID{ada.ID, grace.ID}).Count(&n).Error; err != nil || n != 3 {
			t.Errorf("IN with a []UserID: %d (%v)", n, err)
		}
	})
}

func reload(t *testing.T, e *env, id at.PostID) Post {
	t.Helper()
	var p Post
	if err := e.g.Preload("Tags").First(&p, "id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
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
		if err := e.g.Save(&u).Error; err != nil || u.ID.IsZero() || u.idInHook != u.ID {
			t.Fatalf("Save with a zero key: %v (%v), hook saw %v", u.ID, err, u.idInHook)
		}
		u.Email = "ada.l@example.com"
		if err := e.g.Save(&u).Error; err != nil {
			t.Fatal(err)
		}
		if n := at.Count(t, db, e.table("users")); n != 1 {
			t.Errorf("Save of an existing row: %d rows", n)
		}

		var g User
		if err := e.g.Where(User{Email: "grace@example.com"}).FirstOrCreate(&g).Error; err != nil || g.ID.IsZero() {
			t.Fatalf("FirstOrCreate, new: %v (%v)", g.ID, err)
		}
		var again User
		if err := e.g.Where(User{Email: "grace@example.com"}).FirstOrCreate(&again).Error; err != nil || again.ID != g.ID {
			t.Errorf("FirstOrCreate, existing: %v (%v), want %v", again.ID, err, g.ID)
		}
		var attrs User
		if err := e.g.Where(User{Email: "edsger@example.com"}).Attrs(User{ID: at.UserID(once.FromUint64(99))}).FirstOrCreate(&attrs).Error; err != nil ||
			attrs.ID != at.UserID(once.FromUint64(99)) {
			t.Errorf("FirstOrCreate with a key in Attrs: %v (%v)", attrs.ID, err)
		}

		batch := []*User{{Email: "a@example.com"}, {Email: "b@example.com"}, {Email: "c@example.com"}}
		if err := e.g.Create(&batch).Error; err != nil {
			t.Fatal(err)
		}
		seen := map[at.UserID]bool{}
		for i, b := range batch {
			if b.ID.IsZero() || b.idInHook != b.ID || seen[b.ID] {
				t.Errorf("batch row %d: key %v, hook saw %v", i, b.ID, b.idInHook)
			}
			seen[b.ID] = true
		}
		if err := e.g.CreateInBatches([]User{{Email: "d@example.com"}, {Email: "e@example.com"}, {Email: "f@example.com"}}, 2).Error; err != nil {
			t.Fatal(err)
		}
		if n := at.Count(t, db, e.table("users")); n != 9 {
			t.Errorf("%d users, want 9", n)
		}
	})
}
