package onceopenapi_test

import (
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	onceopenapi "github.com/once-go/once/adapters/openapi"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userSpec]

type signedSpec struct{}

func (signedSpec) Options() once.Options { return once.Options{Prefix: "n", Format: once.Signed} }

type NumID = once.Typed[signedSpec]

type rawSpec struct{}

func (rawSpec) Options() once.Options { return once.Options{Format: once.Raw} }

// Embedded is a type of its own that embeds an ID, spelled the same.
type Embedded struct{ UserID }

type Item struct {
	Owner   UserID   `json:"owner"`
	Editor  *UserID  `json:"editor,omitempty"`
	Numbers []NumID  `json:"numbers"`
	Plain   once.ID  `json:"plain"`
	Other   Embedded `json:"other"`
	Comment string   `json:"comment"`
}

// generate returns the schema openapi3gen makes for Item with Customizer.
func generate(t *testing.T) *openapi3.Schema {
	t.Helper()
	ref, err := openapi3gen.NewSchemaRefForValue(&Item{}, nil, openapi3gen.SchemaCustomizer(onceopenapi.Customizer))
	require.NoError(t, err)
	return ref.Value
}

// TestCustomizer: every ID field (also *T, []T, the plain ID and a type
// embedding an ID) gets its type's schema; the pointer field stays
// nullable; other fields are left alone.
func TestCustomizer(t *testing.T) {
	s := generate(t)
	user, _ := once.SchemaOf(UserID{})
	num, _ := once.SchemaOf(NumID{})
	plain, _ := once.SchemaOf(once.ID{})
	for name, c := range map[string]struct {
		got      *openapi3.Schema
		want     once.Schema
		nullable bool
	}{
		"owner":   {s.Properties["owner"].Value, user, false},
		"editor":  {s.Properties["editor"].Value, user, true},
		"numbers": {s.Properties["numbers"].Value.Items.Value, num, false},
		"plain":   {s.Properties["plain"].Value, plain, false},
		"other":   {s.Properties["other"].Value, user, false},
	} {
		g := c.got
		ext, _ := g.Extensions[once.SchemaExtension].(map[string]any)
		assert.True(t, g.Type.Is("string"), "%s: type %v, want string", name, g.Type)
		assert.Equal(t, c.want.Pattern, g.Pattern, "%s: pattern", name)
		assert.Equal(t, once.SchemaFormat, g.Format, "%s: format", name)
		assert.Equal(t, uint64(c.want.MinLength), g.MinLength, "%s: minLength", name)
		if assert.NotNil(t, g.MaxLength, "%s: maxLength", name) {
			assert.Equal(t, uint64(c.want.MaxLength), *g.MaxLength, "%s: maxLength", name)
		}
		assert.Equal(t, c.want.Example, g.Example, "%s: example", name)
		assert.Equal(t, c.want.Prefix, ext["prefix"], "%s: %s prefix", name, once.SchemaExtension)
		assert.Equal(t, c.nullable, g.Nullable, "%s: nullable", name)
	}
	c := s.Properties["comment"].Value
	assert.True(t, c.Type.Is("string"), "comment: type %v, want string", c.Type)
	assert.Empty(t, c.Pattern, "comment: pattern")
}

// TestValidate: kin-openapi's validator, with Go's regexp and with
// regexp2 in ECMAScript mode, accepts Item values with valid IDs and
// rejects each malformed ID.
func TestValidate(t *testing.T) {
	s := generate(t)
	owner := UserID(once.FromUint64(14702248913163780097)).String()
	item := func(owner, num string) map[string]any {
		return map[string]any{"owner": owner, "numbers": []any{num}, "plain": "zAjhfZyAAAE",
			"other": owner, "comment": "x"}
	}
	ecma := openapi3.SetSchemaRegexCompiler(func(expr string) (openapi3.RegexMatcher, error) {
		re, err := regexp2.Compile(expr, regexp2.ECMAScript)
		return ecmaMatcher{re}, err
	})
	for _, opts := range [][]openapi3.SchemaValidationOption{nil, {ecma}} {
		for _, num := range []string{"n1", "n-9223372036854775808", "n9223372036854775807"} {
			assert.NoError(t, s.VisitJSON(item(owner, num), opts...), "valid item (number %s, ECMAScript engine: %v)", num, opts != nil)
		}
		for _, c := range []struct{ owner, num string }{
			{"org_zAjhfZyAAAE", "n1"},
			{"usr_zAjhfZyAAAB", "n1"}, // spare bits
			{"usr_AAAAAAAAAAA", "n1"}, // spells 0
			{owner + "\n", "n1"},
			{owner, "n0"},
			{owner, "n01"},
			{owner, "n+1"},
			{owner, "n-0"},
			{owner, "n9223372036854775808"}, // 2^63
			{owner, "n-9223372036854775809"},
		} {
			assert.Error(t, s.VisitJSON(item(c.owner, c.num), opts...), "item with owner %q, number %q validates (ECMAScript engine: %v)", c.owner, c.num, opts != nil)
		}
	}
}

type ecmaMatcher struct{ re *regexp2.Regexp }

func (m ecmaMatcher) MatchString(s string) bool {
	ok, err := m.re.MatchString(s)
	return ok && err == nil
}

// TestCustomizerError: an ID type with invalid options fails the
// generation with once.ErrConfig naming the type.
func TestCustomizerError(t *testing.T) {
	type bad struct {
		ID once.Typed[rawSpec] `json:"id"`
	}
	_, err := openapi3gen.NewSchemaRefForValue(&bad{}, nil, openapi3gen.SchemaCustomizer(onceopenapi.Customizer))
	if assert.ErrorIs(t, err, once.ErrConfig) {
		assert.ErrorContains(t, err, "rawSpec")
		assert.True(t, strings.HasPrefix(err.Error(), "onceopenapi: "), "err = %v, want the prefix %q", err, "onceopenapi: ")
	}
}
