package onceopenapi_test

import (
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	onceopenapi "github.com/once-go/once/adapters/openapi"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var rotBinding once.Binding

type rotSpec struct{}

func (rotSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &rotBinding}
}

type RotID = once.Typed[rotSpec]

// TestRotatedKeys: the schema of a masked type whose keyring holds two
// generations accepts both generations' prefixes ("usr_", "usr2_") and no
// other, in Go's engine and in an ECMAScript one.
func TestRotatedKeys(t *testing.T) {
	ring, err := once.NewKeyring(nonce.Blowfish, 0,
		[]byte("openapi-rotation-test-key-gen-1-32"), []byte("openapi-rotation-test-key-gen-2-32"))
	require.NoError(t, err)
	rotBinding.SetKeyring(ring)
	defer rotBinding.SetKeyring(nil)
	ref, err := openapi3gen.NewSchemaRefForValue(&struct {
		Owner RotID `json:"owner"`
	}{}, nil, openapi3gen.SchemaCustomizer(onceopenapi.Customizer))
	require.NoError(t, err)
	s := ref.Value
	assert.Equal(t, `^usr(?:2)?_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$`, s.Properties["owner"].Value.Pattern)
	assert.Equal(t, 2, s.Properties["owner"].Value.Extensions[once.SchemaExtension].(map[string]any)["generations"])

	id := once.FromUint64(255514662584827904)
	var spellings []string
	for g := 1; g <= 2; g++ {
		b, err := rotSpec{}.Options().AppendGeneration(nil, id, g)
		require.NoError(t, err)
		spellings = append(spellings, string(b))
	}
	ecma := openapi3.SetSchemaRegexCompiler(func(expr string) (openapi3.RegexMatcher, error) {
		re, err := regexp2.Compile(expr, regexp2.ECMAScript)
		return ecmaMatcher{re}, err
	})
	for _, opts := range [][]openapi3.SchemaValidationOption{nil, {ecma}} {
		for _, sp := range spellings {
			assert.NoError(t, s.VisitJSON(map[string]any{"owner": sp}, opts...), "%q", sp)
		}
		body := spellings[0][len("usr_"):]
		for _, bad := range []string{"usr3_" + body, "usr1_" + body, "usr22_" + body} {
			assert.Error(t, s.VisitJSON(map[string]any{"owner": bad}, opts...), "%q validates", bad)
		}
	}
}
