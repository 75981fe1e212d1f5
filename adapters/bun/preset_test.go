package oncebun_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/once"
)

// keepPresets is the context of the inserts that keep preset IDs.
var keepPresets = oncebun.WithPresetIDs(context.Background())

// clientBody is what a client posts: an "id" of its own choosing.
const clientBody = `{"id":"usr_AAAAAAAAAAA","email":"mallory@example.com"}`

// Imported keeps the keys it is inserted with: the model opts in.
type Imported struct {
	bun.BaseModel `bun:"table:imported"`
	ID            at.UserID `bun:",pk" once:"preset"`
	Email         string
}

func (m *Imported) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, m)
}

// refusedPreset checks that err is the refusal of a preset ID in
// model.field and that no SQL ran.
func refusedPreset(t *testing.T, e *env, what string, err error, model, field string) {
	t.Helper()
	if assert.ErrorIs(t, err, oncebun.ErrPresetID, what) {
		assert.ErrorIs(t, err, once.ErrInvalid, "%s: an API's 400", what)
		assert.Contains(t, err.Error(), "oncebun: "+model+"."+field+" holds an ID set before the insert", what)
		assert.Contains(t, err.Error(), "oncebun.WithPresetIDs(ctx)", "%s: the error names the switch", what)
		assert.Contains(t, err.Error(), `once:"preset"`, "%s: the error names the tag", what)
	}
	assert.Empty(t, e.log.take(), "%s: ran SQL", what)
}

// TestClientID: a handler that decodes the request body into the model and
// inserts it does not store the ID the client sent: the insert fails with
// ErrPresetID before any SQL runs, and the model is left as decoded. The
// input pattern (a struct without the ID) inserts the row under a new key.
func TestClientID(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		var u User
		require.NoError(t, json.Unmarshal([]byte(clientBody), &u))
		chosen := u.ID
		require.False(t, chosen.IsZero(), "the body's id decodes")
		_, err := e.b.NewInsert().Model(&u).Exec(ctx)
		refusedPreset(t, e, "insert of the decoded body", err, "User", "ID")
		assert.Equal(t, chosen, u.ID, "the model's ID after the refused insert")

		var in struct {
			Email string `json:"email"`
		}
		require.NoError(t, json.Unmarshal([]byte(clientBody), &in))
		made := User{Email: in.Email}
		_, err = e.b.NewInsert().Model(&made).Exec(ctx)
		require.NoError(t, err, "insert from the input struct")
		assert.False(t, made.ID.IsZero() || made.ID == chosen, "the key of an insert from the input struct: %v", made.ID)
		e.log.take()

		// Bulk inserts, upserts and Fill refuse it too.
		batch := []*User{{Email: "a@example.com"}, {Email: "b@example.com", ID: chosen}}
		_, err = e.b.NewInsert().Model(&batch).Exec(ctx)
		refusedPreset(t, e, "bulk insert", err, "User", "ID")
		assert.True(t, batch[0].ID.IsZero(), "bulk insert: key %v left behind", batch[0].ID)
		up := Member{ID: chosen, Email: "up@example.com"}
		_, err = e.b.NewInsert().Model(&up).Ignore().Exec(ctx)
		refusedPreset(t, e, "upsert", err, "Member", "ID")
		refusedPreset(t, e, "Fill", oncebun.Fill(ctx, e.b, &u), "User", "ID")
		n, err := e.b.NewSelect().Table("users").Where("id = ?", chosen).Count(ctx)
		require.NoError(t, err)
		assert.Zero(t, n, "rows stored under the client's ID %d", chosen.Int64())
	})
}

// TestPresetOptIn: under WithPresetIDs an insert (and Fill) keeps the IDs
// set before it and fills the zero ones; a field tagged once:"preset"
// keeps them in every insert; an update by key needs no opt-in.
func TestPresetOptIn(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		k1, k2 := at.UserID(once.FromUint64(1001)), at.UserID(once.FromUint64(1002))
		rows := []User{{ID: k1, Email: "a@example.com"}, {Email: "b@example.com"}, {ID: k2, Email: "c@example.com"}}
		_, err := e.b.NewInsert().Model(&rows).Exec(oncebun.WithPresetIDs(ctx))
		require.NoError(t, err, "import under WithPresetIDs")
		assert.Equal(t, k1, rows[0].ID, "row 0 keeps its key")
		assert.Equal(t, k2, rows[2].ID, "row 2 keeps its key")
		assert.False(t, rows[1].ID.IsZero(), "row 1 is filled")
		for _, r := range rows {
			var got User
			if assert.NoError(t, e.b.NewSelect().Model(&got).Where("id = ?", r.ID).Scan(ctx), "row %v", r.ID) {
				assert.Equal(t, r.Email, got.Email, "row %v", r.ID)
			}
		}
		n := Note{ID: once.FromUint64(7)}
		require.NoError(t, oncebun.Fill(oncebun.WithPresetIDs(ctx), e.b, &n), "Fill under WithPresetIDs")
		assert.Equal(t, once.FromUint64(7), n.ID, "Fill under WithPresetIDs")

		rows[1].Email = "b2@example.com"
		_, err = e.b.NewUpdate().Model(&rows[1]).WherePK().Exec(ctx)
		require.NoError(t, err, "update by key")

		require.NoError(t, oncebun.Register(e.b, (*Imported)(nil)))
		_, err = e.b.NewCreateTable().Model((*Imported)(nil)).Exec(ctx)
		require.NoError(t, err)
		imp := []Imported{{ID: k1, Email: "a@example.com"}, {Email: "b@example.com"}}
		_, err = e.b.NewInsert().Model(&imp).Exec(ctx)
		require.NoError(t, err, `insert of a model tagged once:"preset"`)
		assert.Equal(t, k1, imp[0].ID, "tagged: row 0 keeps its key")
		assert.False(t, imp[1].ID.IsZero(), "tagged: row 1 is filled")
		if c, err := e.b.NewSelect().Model((*Imported)(nil)).Where("id = ?", k1).Count(ctx); assert.NoError(t, err) {
			assert.EqualValues(t, 1, c, "tagged: rows under the preset key")
		}
	})
}
