package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// leased makes a nonce factory that behaves as if its lease were held and
// binds it as the default generator for the test.
func leased(t *testing.T) *nonce.Factory {
	key := sha256.Sum256([]byte("api handler test"))
	f, err := nonce.New(nonce.Config{BaseKey: key[:]})
	require.NoError(t, err)
	require.NoError(t, f.Activate(3, time.Time{}, time.Time{}))
	prev := once.DefaultBinding().Factory()
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(prev) })
	return f
}

// TestHandler covers every status code of the API on each database.
func TestHandler(t *testing.T) {
	for _, c := range []struct {
		name string
		d    migrations.Dialect
		open func(testing.TB) *sql.DB
	}{
		{"sqlite", migrations.SQLite, testenv.SQLite},
		{"postgres", migrations.Postgres, testenv.Postgres},
		{"mariadb", migrations.MySQL, testenv.MySQL},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := leased(t)
			db := c.open(t)
			table := testenv.Unique(t, "api")
			require.NoError(t, createTable(context.Background(), db, c.d, table))
			t.Cleanup(func() { db.Exec("DROP TABLE " + table) })
			srv := httptest.NewServer(newHandler(db, c.d, table))
			defer srv.Close()
			checkRoutes(t, srv.URL)

			// No lease: 503, and nothing stored.
			f.Disable()
			status, body := call(t, "POST", srv.URL+"/users", `{"email":"late@example.com"}`)
			assert.Equal(t, http.StatusServiceUnavailable, status, "POST without a lease: %v", body)
			assert.NotEqual(t, "", body["error"], "POST without a lease: %d %v", status, body)
			var n int
			if assert.NoError(t, db.QueryRow("SELECT count(*) FROM "+table+" WHERE email = 'late@example.com'").Scan(&n), "rows written without a lease") {
				assert.Zero(t, n, "rows written without a lease")
			}
		})
	}
}

// checkRoutes exercises every route and status code against base.
func checkRoutes(t *testing.T, base string) {
	t.Helper()
	status, _ := call(t, "GET", base+"/", "")
	assert.Equal(t, http.StatusOK, status, "GET /")
	status, created := call(t, "POST", base+"/users", `{"email":"ada@example.com"}`)
	id, _ := created["id"].(string)
	require.Equal(t, http.StatusCreated, status, "POST /users: %v", created)
	require.True(t, strings.HasPrefix(id, "usr_"), "POST /users: id %q, want prefix usr_", id)
	require.Len(t, id, 15, "POST /users: id")
	require.Equal(t, "ada@example.com", created["email"], "POST /users: %v", created)
	status, got := call(t, "GET", base+"/users/"+id, "")
	assert.Equal(t, http.StatusOK, status, "GET /users/%s: %v", id, got)
	assert.Equal(t, id, got["id"], "GET /users/%s", id)
	assert.Equal(t, "ada@example.com", got["email"], "GET /users/%s", id)

	// A valid ID of this type with no row: 404.
	other, err := once.NewAs[UserID]()
	require.NoError(t, err)
	status, unknown := call(t, "GET", base+"/users/"+other.String(), "")
	assert.Equal(t, http.StatusNotFound, status, "GET unknown ID: %v", unknown)
	assert.NotEqual(t, "", unknown["error"], "GET unknown ID: %d %v", status, unknown)

	// IDs that do not parse as a UserID: 400 with a JSON error.
	body := id[len("usr_"):]
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", body[10])
	nonCanonical := "usr_" + body[:10] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last|1])
	for _, bad := range []string{
		body,                       // missing prefix
		"org_" + body,              // wrong prefix
		"usr_usr_" + body,          // doubled prefix
		"usr_" + body[:10],         // too short
		"usr_" + body + "A",        // too long
		"usr_" + body[:10] + "!",   // bad character
		"usr_" + body[:10] + "%2B", // '+' is not url64
		nonCanonical,               // non-zero spare bits
		"usr_12345",                // decimal
	} {
		status, got := call(t, "GET", base+"/users/"+bad, "")
		assert.Equal(t, http.StatusBadRequest, status, "GET /users/%s: %v, want 400", bad, got)
		assert.True(t, strings.HasPrefix(got["error"].(string), "once:"), "GET /users/%s: %v, want a once: error", bad, got)
	}
	for _, bad := range []string{`{}`, `{"email":"nope"}`, `not json`, `{"email":"a@b.c","admin":true}`} {
		status, got := call(t, "POST", base+"/users", bad)
		assert.Equal(t, http.StatusBadRequest, status, "POST %s: %v", bad, got)
		assert.NotEqual(t, "", got["error"], "POST %s: %d %v", bad, status, got)
	}
	status, got = call(t, "GET", base+"/nowhere", "")
	assert.Equal(t, http.StatusNotFound, status, "GET /nowhere: %v", got)
	assert.NotEqual(t, "", got["error"], "GET /nowhere: %d %v", status, got)
	status, _ = call(t, "DELETE", base+"/users/"+id, "")
	assert.Equal(t, http.StatusMethodNotAllowed, status, "DELETE")
}

// call sends a request (a body as JSON) and decodes a JSON object answer
// (nil if none).
func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	contentType := ""
	if body != "" {
		contentType = "application/json"
	}
	return send(t, method, url, body, contentType)
}

// post sends a POST with the given content type ("" for none).
func post(t *testing.T, url, body, contentType string) (int, map[string]any) {
	t.Helper()
	return send(t, "POST", url, body, contentType)
}

func send(t *testing.T, method, url, body, contentType string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m), "%s %s: bad JSON", method, url)
	}
	return resp.StatusCode, m
}
