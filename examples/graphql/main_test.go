package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/once-go/once/examples/internal/exampletest"
)

type gqlResponse struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message string   `json:"message"`
		Path    []string `json:"path"`
	} `json:"errors"`
}

// query posts a GraphQL request and decodes the answer.
func query(t *testing.T, base, q string, vars map[string]any) gqlResponse {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": q, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r
}

type user struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	InvitedBy *user  `json:"invitedBy"`
}

// TestQueries: mutations and queries return usr_ IDs, and an ID returned
// by one query is accepted as an argument, inline or as a variable.
func TestQueries(t *testing.T) {
	base := exampletest.Serve(t, run)
	r := query(t, base, `mutation { createUser(name: "Ada") { id name } }`, nil)
	var ada user
	if len(r.Errors) > 0 || json.Unmarshal(r.Data["createUser"], &ada) != nil || !strings.HasPrefix(ada.ID, "usr_") || len(ada.ID) != 15 {
		t.Fatalf("createUser: %+v", r)
	}
	r = query(t, base, `mutation($by: UserID) { createUser(name: "Bob", invitedBy: $by) { id invitedBy { id name } } }`,
		map[string]any{"by": ada.ID})
	var bob user
	if len(r.Errors) > 0 || json.Unmarshal(r.Data["createUser"], &bob) != nil || bob.InvitedBy == nil || bob.InvitedBy.ID != ada.ID {
		t.Fatalf("createUser invited by Ada: %+v", r)
	}
	r = query(t, base, `{ user(id: "`+bob.ID+`") { id name invitedBy { id invitedBy { id } } } }`, nil)
	var got user
	if len(r.Errors) > 0 || json.Unmarshal(r.Data["user"], &got) != nil || got.ID != bob.ID || got.Name != "Bob" ||
		got.InvitedBy == nil || got.InvitedBy.ID != ada.ID || got.InvitedBy.InvitedBy != nil {
		t.Fatalf("user(Bob): %+v", r)
	}
	r = query(t, base, `{ user(id: "usr_zAjhfZyAAAE") { id } }`, nil)
	if len(r.Errors) > 0 || string(r.Data["user"]) != "null" {
		t.Errorf("user with no row: %+v, want null", r)
	}
}

// TestBadIDs: a wrong prefix, a non-canonical spelling, a number or an
// empty string as a UserID argument, inline or as a variable, is a GraphQL
// error carrying once's parse error; the server keeps answering.
func TestBadIDs(t *testing.T) {
	base := exampletest.Serve(t, run)
	r := query(t, base, `mutation { createUser(name: "Ada") { id } }`, nil)
	var ada user
	if len(r.Errors) > 0 || json.Unmarshal(r.Data["createUser"], &ada) != nil {
		t.Fatalf("createUser: %+v", r)
	}
	spare := ada.ID[:14] + "B"
	for _, c := range []struct {
		q    string
		vars map[string]any
		want string
	}{
		{`{ user(id: "org_` + ada.ID[4:] + `") { id } }`, nil, `missing prefix "usr_"`},
		{`{ user(id: "` + spare + `") { id } }`, nil, "non-zero spare bits"},
		{`{ user(id: "` + ada.ID + `=") { id } }`, nil, "length 12"},
		{`{ user(id: "") { id } }`, nil, `invalid ID ""`},
		{`{ user(id: 12) { id } }`, nil, "wants a string"},
		{`query($id: UserID!) { user(id: $id) { id } }`, map[string]any{"id": "USR_" + ada.ID[4:]}, "prefix in the wrong case"},
		{`query($id: UserID!) { user(id: $id) { id } }`, map[string]any{"id": 12}, "wants a string"},
		{`mutation($by: UserID) { createUser(name: "Eve", invitedBy: $by) { id } }`, map[string]any{"by": spare}, "non-zero spare bits"},
	} {
		r := query(t, base, c.q, c.vars)
		if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, c.want) || !strings.Contains(r.Errors[0].Message, "once") {
			t.Errorf("%s %v: %+v, want one error containing %q", c.q, c.vars, r, c.want)
		}
		if v, ok := r.Data["user"]; ok && string(v) != "null" {
			t.Errorf("%s: data %s", c.q, v)
		}
	}
	if r := query(t, base, `mutation($by: UserID) { createUser(name: "Eve", invitedBy: $by) { id } }`,
		map[string]any{"by": "usr_zAjhfZyAAAE"}); len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "no user") {
		t.Errorf("invited by no one: %+v", r)
	}
}
