package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/examples/internal/exampletest"
	"github.com/once-go/once/once"
)

// serve runs the program on a fresh SQLite file and returns its base URL.
func serve(t *testing.T) string { return exampletest.Serve(t, run) }

func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v), "%s %s", method, url)
	return resp.StatusCode, v
}

// TestDocument: /openapi.json gives the path parameter and the ID fields
// of the bodies the exact pattern of UserID, and its x-once-id.
func TestDocument(t *testing.T) {
	base := serve(t)
	code, doc := call(t, "GET", base+"/openapi.json", "")
	require.Equal(t, 200, code, "GET /openapi.json")
	want, err := once.SchemaOf(UserID{})
	require.NoError(t, err)
	require.Equal(t, `^usr_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$`, want.Pattern, "UserID pattern")
	var schemas []any
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v[once.SchemaExtension]; ok {
				schemas = append(schemas, v)
				assert.Equal(t, want.Pattern, v["pattern"], "%s: pattern of %v", path, v)
				assert.Equal(t, "string", v["type"], "%s: type of %v", path, v)
				assert.Equal(t, 15.0, v["minLength"], "%s: minLength of %v", path, v)
				assert.Equal(t, 15.0, v["maxLength"], "%s: maxLength of %v", path, v)
			}
			for k, e := range v {
				walk(e, path+"/"+k)
			}
		case []any:
			for i, e := range v {
				walk(e, path+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "")
	// The path parameter, the request body's invited_by, User's id and
	// invited_by.
	assert.Len(t, schemas, 4, "ID schemas in the document")
}

// TestUsers: valid IDs work in paths and bodies; malformed ones are
// rejected by huma's validation (422, errors located at the ID) before a
// handler runs.
func TestUsers(t *testing.T) {
	base := serve(t)
	code, ada := call(t, "POST", base+"/users", `{"name":"Ada"}`)
	adaID, _ := ada["id"].(string)
	require.Equal(t, 201, code, "POST /users: %v", ada)
	require.True(t, strings.HasPrefix(adaID, "usr_"), "POST /users: id %q, want prefix usr_: %v", adaID, ada)
	require.Len(t, adaID, 15, "POST /users: id")
	code, bob := call(t, "POST", base+"/users", `{"name":"Bob","invited_by":"`+adaID+`"}`)
	require.Equal(t, 201, code, "POST /users invited by Ada: %v", bob)
	require.Equal(t, adaID, bob["invited_by"], "POST /users invited by Ada: %v", bob)
	code, got := call(t, "GET", base+"/users/"+bob["id"].(string), "")
	require.Equal(t, 200, code, "GET Bob: %v", got)
	assert.Equal(t, "Bob", got["name"], "GET Bob: %v", got)
	assert.Equal(t, adaID, got["invited_by"], "GET Bob: %v", got)

	noSuch := UserID(once.FromUint64(1)).String()
	code, v := call(t, "GET", base+"/users/"+noSuch, "")
	assert.Equal(t, 404, code, "GET /users/%s: %v", noSuch, v)
	code, v = call(t, "POST", base+"/users", `{"name":"Eve","invited_by":"`+noSuch+`"}`)
	if assert.Equal(t, 422, code, "invited by no one: %v, want the handler's 422", v) {
		assert.Contains(t, v["detail"], "no user", "invited by no one: %v, want the handler's 422", v)
	}

	spare := adaID[:14] + "B" // non-zero spare bits: not a spelling
	for _, c := range []struct{ method, path, body, location string }{
		{"GET", "/users/org_" + adaID[4:], "", "path.id"},
		{"GET", "/users/" + spare, "", "path.id"},
		{"GET", "/users/" + adaID + "x", "", "path.id"},
		{"POST", "/users", `{"name":"Eve","invited_by":"` + spare + `"}`, "body.invited_by"},
		{"POST", "/users", `{"name":"Eve","invited_by":"USR_` + adaID[4:] + `"}`, "body.invited_by"},
		{"POST", "/users", `{"name":"Eve","invited_by":"` + adaID + `="}`, "body.invited_by"},
	} {
		code, v := call(t, c.method, base+c.path, c.body)
		errs, _ := v["errors"].([]any)
		var first map[string]any
		if len(errs) > 0 {
			first, _ = errs[0].(map[string]any)
		}
		assert.Equal(t, 422, code, "%s %s %s: %v, want huma's 422 at %s", c.method, c.path, c.body, v, c.location)
		assert.Equal(t, c.location, first["location"], "%s %s %s: %v, want huma's 422 at %s", c.method, c.path, c.body, v, c.location)
	}
}
