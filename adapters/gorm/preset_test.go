package oncegorm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm/clause"

	oncegorm "github.com/once-go/once/adapters/gorm"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// keepPresets is the context of the creates that keep preset IDs.
var keepPresets = oncegorm.WithPresetIDs(context.Background())

// clientBody is what a client posts: an "id" of its own choosing.
const clientBody = `{"id":"usr_AAAAAAAAAAA","email":"mallory@example.com"}`

// Imported keeps the keys it is created with: the model opts in.
type Imported struct {
	ID    at.UserID `once:"preset"`
	Email string
}

// refusedPreset checks that err is the refusal of a preset ID in
// model.field and that no INSERT ran.
func refusedPreset(t *testing.T, e *env, what string, err error, model, field string) {
	t.Helper()
	if assert.ErrorIs(t, err, oncegorm.ErrPresetID, what) {
		assert.ErrorIs(t, err, once.ErrInvalid, "%s: an API's 400", what)
		assert.Contains(t, err.Error(), "oncegorm: "+model+"."+field+" holds an ID set before the insert", what)
		assert.Contains(t, err.Error(), "oncegorm.WithPresetIDs(ctx)", "%s: the error names the switch", what)
		assert.Contains(t, err.Error(), `once:"preset"`, "%s: the error names the tag", what)
	}
	for _, s := range e.log.take() {
		assert.False(t, strings.HasPrefix(strings.ToUpper(s), "INSERT"), "%s: ran %s", what, s)
	}
}

// TestClientID: a handler that decodes the request body into the model and
// creates it does not store the ID the client sent: the create fails with
// ErrPresetID before any SQL runs, and the model is left as decoded. The
// input pattern (a struct without the ID) creates the row under a new key.
func TestClientID(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		var u User
		require.NoError(t, json.Unmarshal([]byte(clientBody), &u))
		chosen := u.ID
		require.False(t, chosen.IsZero(), "the body's id decodes")
		refusedPreset(t, e, "Create of the decoded body", e.g.WithContext(ctx).Create(&u).Error, "User", "ID")
		assert.Equal(t, chosen, u.ID, "the model's ID after the refused create")
		var n int64
		require.NoError(t, e.g.Model(&User{}).Where("id = ?", chosen).Count(&n).Error)
		assert.Zero(t, n, "rows stored under the client's ID %d", chosen.Int64())

		// The same body through an input struct without the ID.
		var in struct {
			Email string `json:"email"`
		}
		require.NoError(t, json.Unmarshal([]byte(clientBody), &in))
		made := User{Email: in.Email}
		require.NoError(t, e.g.WithContext(ctx).Create(&made).Error, "Create from the input struct")
		assert.False(t, made.ID.IsZero() || made.ID == chosen, "the key of a create from the input struct: %v", made.ID)
		e.log.take()

		// Other create paths of GORM: batches, Save, FirstOrCreate,
		// upserts.
		batch := []User{{Email: "a@example.com"}, {Email: "b@example.com", ID: chosen}}
		refusedPreset(t, e, "Create of a batch", e.g.Create(&batch).Error, "User", "ID")
		assert.True(t, batch[0].ID.IsZero(), "batch: key %v left behind", batch[0].ID)
		saved := User{ID: chosen, Email: "save@example.com"}
		refusedPreset(t, e, "Save of a key no row has", e.g.Save(&saved).Error, "User", "ID")
		var fc User
		refusedPreset(t, e, "FirstOrCreate with a key in Attrs",
			e.g.Where(User{Email: "new@example.com"}).Attrs(User{ID: chosen}).FirstOrCreate(&fc).Error, "User", "ID")
		up := Account{ID: at.UserID(chosen), Email: "up@example.com"}
		refusedPreset(t, e, "upsert", e.g.Clauses(clause.OnConflict{UpdateAll: true}).Create(&up).Error, "Account", "ID")
		require.NoError(t, e.g.Model(&User{}).Where("id = ?", chosen).Count(&n).Error)
		assert.Zero(t, n, "rows stored under the client's ID %d", chosen.Int64())
	})
}

// TestPresetOptIn: with WithPresetIDs a create keeps the IDs set before it
// and fills the zero ones (imports, backfills, upserts by key); a field
// tagged once:"preset" keeps them in every create; Save of an existing
// row's key updates it without the opt-in.
func TestPresetOptIn(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		k1, k2 := at.UserID(once.FromUint64(1001)), at.UserID(once.FromUint64(1002))
		rows := []User{{ID: k1, Email: "a@example.com"}, {Email: "b@example.com"}, {ID: k2, Email: "c@example.com"}}
		require.NoError(t, e.g.WithContext(oncegorm.WithPresetIDs(ctx)).Create(&rows).Error, "import under WithPresetIDs")
		assert.Equal(t, k1, rows[0].ID, "row 0 keeps its key")
		assert.Equal(t, k2, rows[2].ID, "row 2 keeps its key")
		assert.False(t, rows[1].ID.IsZero(), "row 1 is filled")
		for _, r := range rows {
			var got User
			if assert.NoError(t, e.g.First(&got, "id = ?", r.ID).Error, "row %v", r.ID) {
				assert.Equal(t, r.Email, got.Email, "row %v", r.ID)
			}
		}

		// Save of a loaded row updates it: no insert, no opt-in. On MySQL,
		// whose rows affected count changed rows only, a Save that changes
		// nothing falls back to an insert (ON CONFLICT), which needs it.
		rows[1].Email = "b2@example.com"
		require.NoError(t, e.g.WithContext(ctx).Save(&rows[1]).Error, "Save of an existing row")
		err := e.g.WithContext(ctx).Save(&rows[1]).Error
		if db.Dialect == idfield.MySQL {
			assert.ErrorIs(t, err, oncegorm.ErrPresetID, "Save that changes nothing, on MySQL")
			err = e.g.WithContext(oncegorm.WithPresetIDs(ctx)).Save(&rows[1]).Error
		}
		require.NoError(t, err, "Save that changes nothing")

		// The model opts in.
		require.NoError(t, e.g.AutoMigrate(&Imported{}))
		t.Cleanup(func() { assert.NoError(t, e.g.Migrator().DropTable(&Imported{})) })
		imp := []Imported{{ID: k1, Email: "a@example.com"}, {Email: "b@example.com"}}
		require.NoError(t, e.g.WithContext(ctx).Create(&imp).Error, `create of a model tagged once:"preset"`)
		assert.Equal(t, k1, imp[0].ID, "tagged: row 0 keeps its key")
		assert.False(t, imp[1].ID.IsZero(), "tagged: row 1 is filled")
		var n int64
		require.NoError(t, e.g.Model(&Imported{}).Where("id = ?", k1).Count(&n).Error)
		assert.Equal(t, int64(1), n, "tagged: rows under the preset key")
	})
}

// TestPresetAssociation: GORM saves an association that holds a key with
// an upsert of that row (ON CONFLICT DO NOTHING), an insert of a preset
// ID: refused without the opt-in, whether the row exists or not. The
// foreign key field links an existing row without inserting it.
func TestPresetAssociation(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		ada := User{Email: "ada@example.com"}
		require.NoError(t, e.g.WithContext(ctx).Create(&ada).Error)
		e.log.take()
		p := Post{Title: "one", Author: &ada}
		err := e.g.WithContext(ctx).Create(&p).Error
		refusedPreset(t, e, "Create with an association holding a key", err, "User", "ID")
		assert.Zero(t, at.Count(t, db, e.table("posts")), "posts")

		linked := Post{Title: "one", AuthorID: ada.ID}
		require.NoError(t, e.g.WithContext(ctx).Create(&linked).Error, "Create with the foreign key")
		kept := Post{Title: "two", Author: &ada}
		require.NoError(t, e.g.WithContext(oncegorm.WithPresetIDs(ctx)).Create(&kept).Error, "Create with the association under WithPresetIDs")
		assert.Equal(t, ada.ID, kept.AuthorID, "the association's key")
		assert.Equal(t, 1, at.Count(t, db, e.table("users")), "users")
		assert.Equal(t, 2, at.Count(t, db, e.table("posts")), "posts")
	})
}
