package oncegql_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncegql "github.com/once-go/once/adapters/gqlgen"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestRotatedKeys: under a keyring of two generations the scalar reads
// both generations' spellings ("m_", "m2_") as the same ID, writes the
// current one, and rejects a generation the keyring lacks with
// once.ErrUnknownGeneration (an ErrInvalid).
func TestRotatedKeys(t *testing.T) {
	ring, err := once.NewKeyring(nonce.Blowfish, 0,
		[]byte("gqlgen-rotation-test-key-gen-1-32b"), []byte("gqlgen-rotation-test-key-gen-2-32b"))
	require.NoError(t, err)
	binding.SetKeyring(ring)
	defer binding.SetKeyring(nil)
	type T = once.Typed[maskedSpec]
	id := once.FromUint64(255514662584827904)
	got, err := marshal(T(id))
	require.NoError(t, err)
	cur, _ := strconv.Unquote(got)
	require.True(t, strings.HasPrefix(cur, "m2_"), "Marshal = %s, want generation 2", got)
	for g := 1; g <= 2; g++ {
		b, err := maskedSpec{}.Options().AppendGeneration(nil, id, g)
		require.NoError(t, err)
		back, err := oncegql.Unmarshal[T](context.Background(), string(b))
		assert.NoError(t, err, "Unmarshal(%s)", b)
		assert.Equal(t, T(id), back, "Unmarshal(%s)", b)
	}
	_, err = oncegql.Unmarshal[T](context.Background(), "m3_"+cur[len("m2_"):])
	assert.ErrorIs(t, err, once.ErrUnknownGeneration)
	assert.ErrorIs(t, err, once.ErrInvalid)
}
