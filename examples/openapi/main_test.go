package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/examples/internal/exampletest"
	"github.com/once-go/once/examples/openapi/ids"
	"github.com/once-go/once/once"
)

// serve runs the program on a fresh SQLite file and returns its base URL.
func serve(t *testing.T) string { return exampletest.Serve(t, run) }

func call(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

type userJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	InvitedBy string `json:"invited_by"`
}

// TestSpecSchema: openapi.yaml is a valid document, and its UserID schema
// is once.SchemaOf(ids.UserID{}) (pattern, lengths, format, description,
// example, x-once-id), so the hand-written document cannot drift from the
// Go type.
func TestSpecSchema(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(spec)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()), "openapi.yaml")
	want, err := once.SchemaOf(ids.UserID{})
	require.NoError(t, err)
	s := doc.Components.Schemas["UserID"].Value
	ext, _ := s.Extensions[once.SchemaExtension].(map[string]any)
	assert.True(t, s.Type.Is("string"), "openapi.yaml UserID type %v, want string", s.Type)
	assert.Equal(t, once.SchemaFormat, s.Format, "openapi.yaml UserID format")
	assert.Equal(t, want.Pattern, s.Pattern, "openapi.yaml UserID pattern")
	assert.Equal(t, uint64(want.MinLength), s.MinLength, "openapi.yaml UserID minLength")
	if assert.NotNil(t, s.MaxLength, "openapi.yaml UserID maxLength") {
		assert.Equal(t, uint64(want.MaxLength), *s.MaxLength, "openapi.yaml UserID maxLength")
	}
	assert.Equal(t, want.Description, s.Description, "openapi.yaml UserID description")
	assert.Equal(t, want.Example, s.Example, "openapi.yaml UserID example")
	assert.Equal(t, want.Prefix, ext["prefix"], "openapi.yaml UserID %s.prefix", once.SchemaExtension)
	assert.Equal(t, want.Format.String(), ext["format"], "openapi.yaml UserID %s.format", once.SchemaExtension)
	assert.Equal(t, want.Mask, ext["mask"], "openapi.yaml UserID %s.mask", once.SchemaExtension)
}

// TestServers: through each generated server, valid IDs work in the path
// and the body; a malformed ID (wrong prefix, non-zero spare bits, wrong
// length, upper-case prefix) is answered 400 by the generated code with
// once's parse error, before the handler (which answers 404 or 422).
func TestServers(t *testing.T) {
	base := serve(t)
	code, body := call(t, "GET", base+"/openapi.yaml", "")
	assert.Equal(t, 200, code, "GET /openapi.yaml")
	assert.Contains(t, body, "x-ogen-type", "GET /openapi.yaml")
	for _, server := range []string{"/oapi", "/ogen"} {
		t.Run(server[1:], func(t *testing.T) {
			api := base + server
			code, body := call(t, "POST", api+"/users", `{"name":"Ada"}`)
			var ada, bob, got userJSON
			require.Equal(t, 201, code, "POST /users: %s", body)
			require.NoError(t, json.Unmarshal([]byte(body), &ada), "POST /users: %s", body)
			require.True(t, strings.HasPrefix(ada.ID, "usr_"), "POST /users: id %q, want prefix usr_", ada.ID)
			require.Len(t, ada.ID, 15, "POST /users: id")
			code, body = call(t, "POST", api+"/users", `{"name":"Bob","invited_by":"`+ada.ID+`"}`)
			require.Equal(t, 201, code, "POST /users invited by Ada: %s", body)
			require.NoError(t, json.Unmarshal([]byte(body), &bob), "POST /users invited by Ada: %s", body)
			require.Equal(t, ada.ID, bob.InvitedBy, "POST /users invited by Ada: %s", body)
			code, body = call(t, "GET", api+"/users/"+bob.ID, "")
			require.Equal(t, 200, code, "GET Bob: %s", body)
			require.NoError(t, json.Unmarshal([]byte(body), &got), "GET Bob: %s", body)
			assert.Equal(t, bob, got, "GET Bob: %s", body)

			noSuch := "usr_zAjhfZyAAAE" // a valid spelling that no user has
			code, body = call(t, "GET", api+"/users/"+noSuch, "")
			assert.Equal(t, 404, code, "GET /users/%s: %s", noSuch, body)
			code, body = call(t, "POST", api+"/users", `{"name":"Eve","invited_by":"`+noSuch+`"}`)
			assert.Equal(t, 422, code, "invited by no one: %s", body)

			spare := ada.ID[:14] + "B"
			for _, c := range []struct{ method, path, body string }{
				{"GET", "/users/org_" + ada.ID[4:], ""},
				{"GET", "/users/" + spare, ""},
				{"GET", "/users/" + ada.ID + "x", ""},
				{"GET", "/users/USR_" + ada.ID[4:], ""},
				{"POST", "/users", `{"name":"Eve","invited_by":"` + spare + `"}`},
				{"POST", "/users", `{"name":"Eve","invited_by":"org_` + ada.ID[4:] + `"}`},
				{"POST", "/users", `{"name":"Eve","invited_by":"` + ada.ID + `="}`},
			} {
				code, body := call(t, c.method, api+c.path, c.body)
				assert.Equal(t, 400, code, "%s %s %s: %s, want 400 with once's parse error", c.method, c.path, c.body, body)
				assert.Contains(t, body, "once: invalid ID", "%s %s %s: want once's parse error", c.method, c.path, c.body)
			}
		})
	}
}
