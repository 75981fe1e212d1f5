package oncesqlx_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/once"
)

// keepPresets is the context of the calls that keep preset IDs.
var keepPresets = oncesqlx.WithPresetIDs(context.Background())

// clientBody is what a client posts: an "id" of its own choosing.
const clientBody = `{"id":"usr_AAAAAAAAAAA","email":"mallory@example.com"}`

// Imported keeps the keys it is inserted with: the struct opts in.
type Imported struct {
	ID    at.UserID `db:"id" once:"preset"`
	Email string    `db:"email"`
}

const insertUser = `INSERT INTO users (id, email) VALUES (:id, :email)`

// refusedPreset checks that err is the refusal of a preset ID in
// model.field.
func refusedPreset(t *testing.T, what string, err error, model, field string) {
	t.Helper()
	if assert.ErrorIs(t, err, oncesqlx.ErrPresetID, what) {
		assert.ErrorIs(t, err, once.ErrInvalid, "%s: an API's 400", what)
		assert.Contains(t, err.Error(), "oncesqlx: "+model+"."+field+" holds an ID set before the insert", what)
		assert.Contains(t, err.Error(), "oncesqlx.WithPresetIDs(ctx)", "%s: the error names the switch", what)
		assert.Contains(t, err.Error(), `once:"preset"`, "%s: the error names the tag", what)
	}
}

// TestClientID: a handler that decodes the request body into the struct
// and inserts it with NamedExec (or Fill) does not store the ID the client
// sent: the call fails with ErrPresetID before the statement runs, and the
// struct is left as decoded. The input pattern inserts the row under a new
// key.
func TestClientID(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		var u User
		require.NoError(t, json.Unmarshal([]byte(clientBody), &u))
		chosen := u.ID
		require.False(t, chosen.IsZero(), "the body's id decodes")
		_, err := oncesqlx.NamedExec(ctx, e.x, insertUser, &u)
		refusedPreset(t, "NamedExec of the decoded body", err, "User", "ID")
		assert.Equal(t, chosen, u.ID, "the struct's ID after the refused insert")
		refusedPreset(t, "Fill of the decoded body", oncesqlx.Fill(ctx, &u), "User", "ID")
		batch := []User{{Email: "a@example.com"}, {Email: "b@example.com", ID: chosen}}
		_, err = oncesqlx.NamedExec(ctx, e.x, insertUser, batch)
		refusedPreset(t, "NamedExec of a batch", err, "User", "ID")
		assert.True(t, batch[0].ID.IsZero(), "batch: key %v left behind", batch[0].ID)
		assert.Zero(t, at.Count(t, db, "users"), "users")

		var in struct {
			Email string `json:"email"`
		}
		require.NoError(t, json.Unmarshal([]byte(clientBody), &in))
		made := User{Email: in.Email}
		_, err = oncesqlx.NamedExec(ctx, e.x, insertUser, &made)
		require.NoError(t, err, "insert from the input struct")
		assert.False(t, made.ID.IsZero() || made.ID == chosen, "the key of an insert from the input struct: %v", made.ID)
		var n int
		require.NoError(t, e.x.QueryRowx(e.x.Rebind("SELECT count(*) FROM users WHERE id = ?"), chosen).Scan(&n))
		assert.Zero(t, n, "rows stored under the client's ID %d", chosen.Int64())
	})
}

// TestPresetOptIn: under WithPresetIDs NamedExec and Fill keep the IDs set
// before them and fill the zero ones; a field tagged once:"preset" keeps
// them in every call; an UPDATE by key needs no opt-in.
func TestPresetOptIn(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		k1, k2 := at.UserID(once.FromUint64(1001)), at.UserID(once.FromUint64(1002))
		rows := []User{{ID: k1, Email: "a@example.com"}, {Email: "b@example.com"}, {ID: k2, Email: "c@example.com"}}
		_, err := oncesqlx.NamedExec(oncesqlx.WithPresetIDs(ctx), e.x, insertUser, rows)
		require.NoError(t, err, "import under WithPresetIDs")
		assert.Equal(t, k1, rows[0].ID, "row 0 keeps its key")
		assert.Equal(t, k2, rows[2].ID, "row 2 keeps its key")
		assert.False(t, rows[1].ID.IsZero(), "row 1 is filled")
		for _, r := range rows {
			var email string
			if assert.NoError(t, e.x.GetContext(ctx, &email, e.x.Rebind("SELECT email FROM users WHERE id = ?"), r.ID), "row %v", r.ID) {
				assert.Equal(t, r.Email, email, "row %v", r.ID)
			}
		}
		one := User{ID: at.UserID(once.FromUint64(1003))}
		require.NoError(t, oncesqlx.Fill(keepPresets, &one), "Fill under WithPresetIDs")
		assert.Equal(t, at.UserID(once.FromUint64(1003)), one.ID, "Fill under WithPresetIDs")

		rows[1].Email = "b2@example.com"
		_, err = oncesqlx.NamedExec(ctx, e.x, `UPDATE users SET email = :email WHERE id = :id`, &rows[1])
		require.NoError(t, err, "UPDATE by key")

		imp := []Imported{{ID: at.UserID(once.FromUint64(2001)), Email: "d@example.com"}, {Email: "e@example.com"}}
		_, err = oncesqlx.NamedExec(ctx, e.x, insertUser, imp)
		require.NoError(t, err, `insert of a struct tagged once:"preset"`)
		assert.Equal(t, at.UserID(once.FromUint64(2001)), imp[0].ID, "tagged: row 0 keeps its key")
		assert.False(t, imp[1].ID.IsZero(), "tagged: row 1 is filled")
		assert.Equal(t, 5, at.Count(t, db, "users"), "users")
	})
}
