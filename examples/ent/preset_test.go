package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/examples/ent/ent"
	"github.com/once-go/once/examples/ent/ent/user"
	"github.com/once-go/once/once"
)

// keepPresets is the context of the creates that keep preset keys.
var keepPresets = oncent.WithPresetIDs(context.Background())

// clientBody is what a client posts: an "id" of its own choosing.
const clientBody = `{"id":"usr_AAAAAAAAAAA","email":"mallory@example.com"}`

// TestClientID: a handler that decodes the request body into the entity
// and copies its fields onto a create does not store the ID the client
// sent: the create fails with ErrPresetID (a 400: it matches
// once.ErrInvalid) and runs no SQL. With the opt-in, an import keeps its
// keys.
func TestClientID(t *testing.T) {
	ctx := context.Background()
	eachDB(t, func(t *testing.T, db testDB) {
		generator(t, true)
		c, l := client(t, db)
		var in ent.User
		require.NoError(t, json.Unmarshal([]byte(clientBody), &in))
		require.False(t, in.ID.IsZero(), "the body's id decodes")
		u, err := c.User.Create().SetID(in.ID).SetEmail(in.Email).Save(ctx)
		assert.ErrorIs(t, err, oncent.ErrPresetID, "create with the client's ID: %v", u)
		assert.ErrorIs(t, err, once.ErrInvalid, "create with the client's ID")
		assert.ErrorContains(t, err, "oncent.WithPresetIDs(ctx)", "the error names the switch")
		assert.Empty(t, l.take(), "SQL ran")
		n, err := c.User.Query().Where(user.ID(in.ID)).Count(ctx)
		require.NoError(t, err)
		assert.Zero(t, n, "rows stored under the client's ID %d", in.ID.Int64())

		// The input pattern: the client's fields, a key of the hook's.
		u, err = c.User.Create().SetEmail(in.Email).Save(ctx)
		require.NoError(t, err, "create from the input's fields")
		assert.NotEqual(t, in.ID, u.ID, "the key of a create from the input's fields")

		// An import keeps its keys with the opt-in.
		imported := ent.User{ID: in.ID, Email: "imported@example.com"}
		_, err = c.User.Create().SetID(imported.ID).SetEmail(imported.Email).Save(keepPresets)
		require.NoError(t, err, "import under WithPresetIDs")
		got, err := c.User.Get(ctx, imported.ID)
		if assert.NoError(t, err, "the imported row") {
			assert.Equal(t, imported.Email, got.Email, "the imported row")
		}
	})
}
