package oncehuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncehuma "github.com/once-go/once/adapters/huma"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userSpec]

type hexSpec struct{}

func (hexSpec) Options() once.Options { return once.Options{Prefix: "tag_", Format: once.Hex} }

type TagID = once.Typed[hexSpec]

type rawSpec struct{}

func (rawSpec) Options() once.Options { return once.Options{Format: once.Raw} }

type Item struct {
	Owner   UserID  `json:"owner"`
	Editor  *UserID `json:"editor,omitempty" doc:"who edited it last"`
	Tags    []TagID `json:"tags"`
	Comment string  `json:"comment"`
}

type putInput struct {
	ID   UserID `path:"id"`
	Body Item
}

type putOutput struct{ Body Item }

// newAPI returns a huma API with one operation, PUT /items/{id}, and the
// number of times its handler ran.
func newAPI(t *testing.T) (http.Handler, huma.API, *int) {
	t.Helper()
	config := huma.DefaultConfig("test", "1.0.0")
	require.NoError(t, oncehuma.Register[UserID](config.Components.Schemas))
	require.NoError(t, oncehuma.Register[TagID](config.Components.Schemas))
	mux := http.NewServeMux()
	api := humago.New(mux, config)
	calls := new(int)
	huma.Put(api, "/items/{id}", func(_ context.Context, in *putInput) (*putOutput, error) {
		*calls++
		return &putOutput{Body: in.Body}, nil
	})
	return mux, api, calls
}

func do(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestDocument: the OpenAPI document describes the path parameter, the
// fields (also behind a pointer and in a slice) with the schema of their
// ID type.
func TestDocument(t *testing.T) {
	h, _, _ := newAPI(t)
	w := do(h, "GET", "/openapi.json", "")
	require.Equal(t, 200, w.Code, "GET /openapi.json: %s", w.Body)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				Schema map[string]any
			}
		}
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any
			}
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &doc))
	user, _ := once.SchemaOf(UserID{})
	tag, _ := once.SchemaOf(TagID{})
	check := func(where string, s map[string]any, want once.Schema) {
		t.Helper()
		ext, _ := s[once.SchemaExtension].(map[string]any)
		assert.Equal(t, "string", s["type"], "%s: type in schema %v", where, s)
		assert.Equal(t, want.Pattern, s["pattern"], "%s: pattern in schema %v", where, s)
		assert.Equal(t, once.SchemaFormat, s["format"], "%s: format in schema %v", where, s)
		assert.Equal(t, float64(want.MinLength), s["minLength"], "%s: minLength in schema %v", where, s)
		assert.Equal(t, float64(want.MaxLength), s["maxLength"], "%s: maxLength in schema %v", where, s)
		assert.Equal(t, want.Prefix, ext["prefix"], "%s: %s prefix in schema %v", where, once.SchemaExtension, s)
		assert.Equal(t, want.Format.String(), ext["format"], "%s: %s format in schema %v", where, once.SchemaExtension, s)
		assert.Equal(t, want.Mask, ext["mask"], "%s: %s mask in schema %v", where, once.SchemaExtension, s)
	}
	params := doc.Paths["/items/{id}"]["put"].Parameters
	require.Len(t, params, 1, "parameters of PUT /items/{id}")
	check("path parameter id", params[0].Schema, user)
	item := doc.Components.Schemas["Item"].Properties
	check("owner", item["owner"], user)
	check("editor (*UserID)", item["editor"], user)
	assert.Equal(t, "who edited it last", item["editor"]["description"], "editor: the doc tag is not the description")
	items, _ := item["tags"]["items"].(map[string]any)
	check("tags ([]TagID) items", items, tag)
}

// TestValidation: huma answers 422 for an ID its pattern rejects (wrong
// prefix, non-zero spare bits, upper-case hex, the zero spelling) in the
// body or the path, before the handler runs; valid IDs reach it.
func TestValidation(t *testing.T) {
	h, _, calls := newAPI(t)
	owner := UserID(once.FromUint64(14702248913163780097)).String()
	tag := TagID(once.FromUint64(42)).String()
	body := func(owner, tag string) string {
		return `{"owner":"` + owner + `","tags":["` + tag + `"],"comment":"x"}`
	}
	w := do(h, "PUT", "/items/"+owner, body(owner, tag))
	require.Equal(t, 200, w.Code, "valid request: %s (handler ran %d times)", w.Body, *calls)
	require.Equal(t, 1, *calls, "valid request: %d %s: handler runs", w.Code, w.Body)
	require.Contains(t, w.Body.String(), owner, "valid request: the answer")
	for _, c := range []struct{ path, body, want string }{
		{owner, body("org_zAjhfZyAAAE", tag), "body.owner"},
		{owner, body("usr_zAjhfZyAAAB", tag), "body.owner"},          // spare bits
		{owner, body("usr_AAAAAAAAAAA", tag), "body.owner"},          // spells 0
		{owner, body(owner, "tag_000000000000002A"), "body.tags[0]"}, // upper case
		{owner, `{"owner":"` + owner + `","editor":"usr_x","tags":[],"comment":""}`, "body.editor"},
		{"org_zAjhfZyAAAE", body(owner, tag), "path.id"},
		{"usr_zAjhfZyAAAB", body(owner, tag), "path.id"},
	} {
		*calls = 0
		w := do(h, "PUT", "/items/"+c.path, c.body)
		assert.Equal(t, http.StatusUnprocessableEntity, w.Code, "PUT /items/%s %s: %s", c.path, c.body, w.Body)
		assert.Zero(t, *calls, "PUT /items/%s %s: handler runs", c.path, c.body)
		assert.Contains(t, w.Body.String(), `"location":"`+c.want+`"`, "PUT /items/%s %s: want 422 at %s", c.path, c.body, c.want)
		if strings.HasPrefix(c.want, "body") {
			assert.Contains(t, w.Body.String(), "expected string to be ID: ", "%s: want huma's pattern message", c.want)
		}
	}
}

// TestRegisterErrors: invalid options and a nil registry are errors, and
// nothing is registered.
func TestRegisterErrors(t *testing.T) {
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	err := oncehuma.Register[once.Typed[rawSpec]](r)
	if assert.ErrorIs(t, err, once.ErrConfig, "Register of a raw-format type") {
		assert.True(t, strings.HasPrefix(err.Error(), "oncehuma: "), "Register of a raw-format type: %v, want the prefix %q", err, "oncehuma: ")
	}
	assert.ErrorIs(t, oncehuma.Register[UserID](nil), oncehuma.ErrNilRegistry, "Register(nil)")
}

// TestPlainID: the package's plain ID registers too.
func TestPlainID(t *testing.T) {
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	require.NoError(t, oncehuma.Register[once.ID](r))
	want, _ := once.SchemaOf(once.ID{})
	s := r.Schema(reflect.TypeFor[once.ID](), true, "")
	require.NotNil(t, s, "ID: schema")
	assert.Equal(t, want.Pattern, s.Pattern, "ID: pattern")
}
