package oncehuma_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	oncehuma "github.com/once-go/once/adapters/huma"
	"github.com/once-go/once/once"
)

type userKind struct{}

func (userKind) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userKind]

type hexKind struct{}

func (hexKind) Options() once.Options { return once.Options{Prefix: "tag_", Format: once.Hex} }

type TagID = once.Typed[hexKind]

type rawKind struct{}

func (rawKind) Options() once.Options { return once.Options{Format: once.Raw} }

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
	if err := oncehuma.Register[UserID](config.Components.Schemas); err != nil {
		t.Fatal(err)
	}
	if err := oncehuma.Register[TagID](config.Components.Schemas); err != nil {
		t.Fatal(err)
	}
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
	if w.Code != 200 {
		t.Fatalf("GET /openapi.json: %d %s", w.Code, w.Body)
	}
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
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	user, _ := once.SchemaOf(UserID{})
	tag, _ := once.SchemaOf(TagID{})
	check := func(where string, s map[string]any, want once.Schema) {
		t.Helper()
		ext, _ := s[once.SchemaExtension].(map[string]any)
		if s["type"] != "string" || s["pattern"] != want.Pattern || s["format"] != once.SchemaFormat ||
			s["minLength"] != float64(want.MinLength) || s["maxLength"] != float64(want.MaxLength) ||
			ext["prefix"] != want.Prefix || ext["format"] != want.Format.String() || ext["mask"] != want.Mask {
			t.Errorf("%s: schema %v, want that of %+v", where, s, want)
		}
	}
	params := doc.Paths["/items/{id}"]["put"].Parameters
	if len(params) != 1 {
		t.Fatalf("parameters %+v", params)
	}
	check("path parameter id", params[0].Schema, user)
	item := doc.Components.Schemas["Item"].Properties
	check("owner", item["owner"], user)
	check("editor (*UserID)", item["editor"], user)
	if item["editor"]["description"] != "who edited it last" {
		t.Errorf("editor: the doc tag is not the description: %v", item["editor"]["description"])
	}
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
	if w.Code != 200 || *calls != 1 || !strings.Contains(w.Body.String(), owner) {
		t.Fatalf("valid request: %d %s (handler ran %d times)", w.Code, w.Body, *calls)
	}
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
		if w.Code != http.StatusUnprocessableEntity || *calls != 0 || !strings.Contains(w.Body.String(), `"location":"`+c.want+`"`) {
			t.Errorf("PUT /items/%s %s: %d %s (handler ran %d times), want 422 at %s", c.path, c.body, w.Code, w.Body, *calls, c.want)
		}
		if strings.HasPrefix(c.want, "body") && !strings.Contains(w.Body.String(), "expected string to be ID: ") {
			t.Errorf("%s: %s, want huma's pattern message", c.want, w.Body)
		}
	}
}

// TestRegisterErrors: invalid options and a nil registry are errors, and
// nothing is registered.
func TestRegisterErrors(t *testing.T) {
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	if err := oncehuma.Register[once.Typed[rawKind]](r); !errors.Is(err, once.ErrConfig) || !strings.HasPrefix(err.Error(), "oncehuma: ") {
		t.Errorf("Register of a raw-format type: %v, want oncehuma: ... ErrConfig", err)
	}
	if err := oncehuma.Register[UserID](nil); !errors.Is(err, oncehuma.ErrNilRegistry) {
		t.Errorf("Register(nil) = %v", err)
	}
}

// TestPlainID: the package's plain ID registers too.
func TestPlainID(t *testing.T) {
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	if err := oncehuma.Register[once.ID](r); err != nil {
		t.Fatal(err)
	}
	want, _ := once.SchemaOf(once.ID{})
	if s := r.Schema(reflect.TypeFor[once.ID](), true, ""); s.Pattern != want.Pattern {
		t.Errorf("ID: pattern %q", s.Pattern)
	}
}
