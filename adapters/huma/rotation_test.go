package oncehuma_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncehuma "github.com/once-go/once/adapters/huma"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var rotBinding once.Binding

type rotSpec struct{}

func (rotSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &rotBinding}
}

type RotID = once.Typed[rotSpec]

type rotInput struct {
	ID RotID `path:"id"`
}

type rotOutput struct {
	Body struct {
		ID RotID `json:"id"`
	}
}

// TestRotatedKeys: registered after the keyring is bound, a masked type
// takes both generations' spellings in a path parameter (the handler gets
// the same ID and answers with the current spelling), and huma answers
// 422 to a generation the keyring lacks.
func TestRotatedKeys(t *testing.T) {
	ring, err := once.NewKeyring(nonce.Blowfish, 0,
		[]byte("huma-rotation-test-key-gen-1-32byt"), []byte("huma-rotation-test-key-gen-2-32byt"))
	require.NoError(t, err)
	rotBinding.SetKeyring(ring)
	defer rotBinding.SetKeyring(nil)
	config := huma.DefaultConfig("test", "1.0.0")
	require.NoError(t, oncehuma.Register[RotID](config.Components.Schemas))
	mux := http.NewServeMux()
	api := humago.New(mux, config)
	huma.Get(api, "/users/{id}", func(_ context.Context, in *rotInput) (*rotOutput, error) {
		out := &rotOutput{}
		out.Body.ID = in.ID
		return out, nil
	})
	id := once.FromUint64(255514662584827904)
	cur := RotID(id).String()
	for g := 1; g <= 2; g++ {
		b, err := rotSpec{}.Options().AppendGeneration(nil, id, g)
		require.NoError(t, err)
		w := do(mux, "GET", "/users/"+string(b), "")
		require.Equal(t, 200, w.Code, "generation %d, %s: %s", g, b, w.Body)
		assert.Contains(t, w.Body.String(), `"id":"`+cur+`"`, "generation %d: the answer spells the current generation", g)
	}
	w := do(mux, "GET", "/users/usr3_"+cur[len("usr2_"):], "")
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code, "unknown generation: %s", w.Body)
}
