package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/once-go/once/examples/internal/exampletest"
	"github.com/once-go/once/examples/openapi/ids"
	"github.com/once-go/once/once"
)

// serve runs the program on a fresh SQLite file and returns its base URL.
func serve(t *testing.T) string { return exampletest.Serve(t, run) }

func call(t *testing.T, method, url, body string) (int, string) {
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
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	want, err := once.SchemaOf(ids.UserID{})
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Components.Schemas["UserID"].Value
	ext, _ := s.Extensions[once.SchemaExtension].(map[string]any)
	if !s.Type.Is("string") || s.Format != once.SchemaFormat || s.Pattern != want.Pattern ||
		s.MinLength != uint64(want.MinLength) || s.MaxLength == nil || *s.MaxLength != uint64(want.MaxLength) ||
		s.Description != want.Description || s.Example != want.Example ||
		ext["prefix"] != want.Prefix || ext["format"] != want.Format.String() || ext["mask"] != want.Mask {
		t.Errorf("openapi.yaml UserID:\n%+v\nwant the fields of\n%+v", s, want)
	}
}

// TestServers: through each generated server, valid IDs work in the path
// and the body; a malformed ID (wrong prefix, non-zero spare bits, wrong
// length, upper-case prefix) is answered 400 by the generated code with
// once's parse error, before the handler (which answers 404 or 422).
func TestServers(t *testing.T) {
	base := serve(t)
	if code, body := call(t, "GET", base+"/openapi.yaml", ""); code != 200 || !strings.Contains(body, "x-ogen-type") {
		t.Errorf("GET /openapi.yaml: %d", code)
	}
	for _, server := range []string{"/oapi", "/ogen"} {
		t.Run(server[1:], func(t *testing.T) {
			api := base + server
			code, body := call(t, "POST", api+"/users", `{"name":"Ada"}`)
			var ada, bob, got userJSON
			if code != 201 || json.Unmarshal([]byte(body), &ada) != nil || !strings.HasPrefix(ada.ID, "usr_") || len(ada.ID) != 15 {
				t.Fatalf("POST /users: %d %s", code, body)
			}
			code, body = call(t, "POST", api+"/users", `{"name":"Bob","invited_by":"`+ada.ID+`"}`)
			if code != 201 || json.Unmarshal([]byte(body), &bob) != nil || bob.InvitedBy != ada.ID {
				t.Fatalf("POST /users invited by Ada: %d %s", code, body)
			}
			code, body = call(t, "GET", api+"/users/"+bob.ID, "")
			if code != 200 || json.Unmarshal([]byte(body), &got) != nil || got != bob {
				t.Fatalf("GET Bob: %d %s, want %+v", code, body, bob)
			}

			noSuch := "usr_zAjhfZyAAAE" // a valid spelling that no user has
			if code, body := call(t, "GET", api+"/users/"+noSuch, ""); code != 404 {
				t.Errorf("GET /users/%s: %d %s, want 404", noSuch, code, body)
			}
			if code, body := call(t, "POST", api+"/users", `{"name":"Eve","invited_by":"`+noSuch+`"}`); code != 422 {
				t.Errorf("invited by no one: %d %s, want 422", code, body)
			}

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
				if code != 400 || !strings.Contains(body, "once: invalid ID") {
					t.Errorf("%s %s %s: %d %s, want 400 with once's parse error", c.method, c.path, c.body, code, body)
				}
			}
		})
	}
}
