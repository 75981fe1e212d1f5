package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err)
	resp, err := http.Post(base+"/graphql", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var r gqlResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r), "%s", q)
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
	require.Empty(t, r.Errors, "createUser: %+v", r)
	require.NoError(t, json.Unmarshal(r.Data["createUser"], &ada), "createUser: %s", r.Data["createUser"])
	require.True(t, strings.HasPrefix(ada.ID, "usr_"), "createUser: id %q, want prefix usr_", ada.ID)
	require.Len(t, ada.ID, 15, "createUser: id")
	r = query(t, base, `mutation($by: UserID) { createUser(name: "Bob", invitedBy: $by) { id invitedBy { id name } } }`,
		map[string]any{"by": ada.ID})
	var bob user
	require.Empty(t, r.Errors, "createUser invited by Ada: %+v", r)
	require.NoError(t, json.Unmarshal(r.Data["createUser"], &bob), "createUser invited by Ada: %s", r.Data["createUser"])
	require.NotNil(t, bob.InvitedBy, "createUser invited by Ada: %s", r.Data["createUser"])
	require.Equal(t, ada.ID, bob.InvitedBy.ID, "createUser invited by Ada: invitedBy")
	r = query(t, base, `{ user(id: "`+bob.ID+`") { id name invitedBy { id invitedBy { id } } } }`, nil)
	var got user
	require.Empty(t, r.Errors, "user(Bob): %+v", r)
	require.NoError(t, json.Unmarshal(r.Data["user"], &got), "user(Bob): %s", r.Data["user"])
	assert.Equal(t, bob.ID, got.ID, "user(Bob): id")
	assert.Equal(t, "Bob", got.Name, "user(Bob): name")
	if assert.NotNil(t, got.InvitedBy, "user(Bob): %s, want invitedBy Ada", r.Data["user"]) {
		assert.Equal(t, ada.ID, got.InvitedBy.ID, "user(Bob): invitedBy")
		assert.Nil(t, got.InvitedBy.InvitedBy, "user(Bob): %s, want Ada invited by no one", r.Data["user"])
	}
	r = query(t, base, `{ user(id: "usr_zAjhfZyAAAE") { id } }`, nil)
	assert.Empty(t, r.Errors, "user with no row: %+v, want null", r)
	assert.Equal(t, "null", string(r.Data["user"]), "user with no row")
}

// TestBadIDs: a wrong prefix, a non-canonical spelling, a number or an
// empty string as a UserID argument, inline or as a variable, is a GraphQL
// error carrying once's parse error; the server keeps answering.
func TestBadIDs(t *testing.T) {
	base := exampletest.Serve(t, run)
	r := query(t, base, `mutation { createUser(name: "Ada") { id } }`, nil)
	var ada user
	require.Empty(t, r.Errors, "createUser: %+v", r)
	require.NoError(t, json.Unmarshal(r.Data["createUser"], &ada), "createUser: %s", r.Data["createUser"])
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
		if assert.Len(t, r.Errors, 1, "%s %v: %+v, want one error containing %q", c.q, c.vars, r, c.want) {
			assert.Contains(t, r.Errors[0].Message, c.want, "%s %v", c.q, c.vars)
			assert.Contains(t, r.Errors[0].Message, "once", "%s %v: want once's parse error", c.q, c.vars)
		}
		if v, ok := r.Data["user"]; ok {
			assert.Equal(t, "null", string(v), "%s: data", c.q)
		}
	}
	r = query(t, base, `mutation($by: UserID) { createUser(name: "Eve", invitedBy: $by) { id } }`,
		map[string]any{"by": "usr_zAjhfZyAAAE"})
	if assert.Len(t, r.Errors, 1, "invited by no one: %+v", r) {
		assert.Contains(t, r.Errors[0].Message, "no user", "invited by no one")
	}
}
