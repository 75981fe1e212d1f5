package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/examples/internal/exampletest"
	"github.com/once-go/once/once"
)

// serve runs the program on a fresh SQLite file and returns its base URL.
func serve(t *testing.T) string { return exampletest.Serve(t, run) }

func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, v
}

// TestDocument: /openapi.json gives the path parameter and the ID fields
// of the bodies the exact pattern of UserID, and its x-once-id.
func TestDocument(t *testing.T) {
	base := serve(t)
	code, doc := call(t, "GET", base+"/openapi.json", "")
	if code != 200 {
		t.Fatalf("GET /openapi.json: %d", code)
	}
	want, err := once.SchemaOf(UserID{})
	if err != nil {
		t.Fatal(err)
	}
	if want.Pattern != `^usr_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$` {
		t.Fatalf("UserID pattern %s", want.Pattern)
	}
	var schemas []any
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v[once.SchemaExtension]; ok {
				schemas = append(schemas, v)
				if v["pattern"] != want.Pattern || v["type"] != "string" || v["minLength"] != 15.0 || v["maxLength"] != 15.0 {
					t.Errorf("%s: %v", path, v)
				}
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
	if len(schemas) != 4 {
		t.Errorf("%d ID schemas in the document, want 4", len(schemas))
	}
}

// TestUsers: valid IDs work in paths and bodies; malformed ones are
// rejected by huma's validation (422, errors located at the ID) before a
// handler runs.
func TestUsers(t *testing.T) {
	base := serve(t)
	code, ada := call(t, "POST", base+"/users", `{"name":"Ada"}`)
	adaID, _ := ada["id"].(string)
	if code != 201 || !strings.HasPrefix(adaID, "usr_") || len(adaID) != 15 {
		t.Fatalf("POST /users: %d %v", code, ada)
	}
	code, bob := call(t, "POST", base+"/users", `{"name":"Bob","invited_by":"`+adaID+`"}`)
	if code != 201 || bob["invited_by"] != adaID {
		t.Fatalf("POST /users invited by Ada: %d %v", code, bob)
	}
	code, got := call(t, "GET", base+"/users/"+bob["id"].(string), "")
	if code != 200 || got["name"] != "Bob" || got["invited_by"] != adaID {
		t.Fatalf("GET Bob: %d %v", code, got)
	}

	noSuch := UserID(once.FromUint64(1)).String()
	if code, v := call(t, "GET", base+"/users/"+noSuch, ""); code != 404 {
		t.Errorf("GET /users/%s: %d %v, want 404", noSuch, code, v)
	}
	if code, v := call(t, "POST", base+"/users", `{"name":"Eve","invited_by":"`+noSuch+`"}`); code != 422 || !strings.Contains(v["detail"].(string), "no user") {
		t.Errorf("invited by no one: %d %v, want the handler's 422", code, v)
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
		if code != 422 || first["location"] != c.location {
			t.Errorf("%s %s %s: %d %v, want huma's 422 at %s", c.method, c.path, c.body, code, v, c.location)
		}
	}
}
