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

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// leased makes a nonce factory that behaves as if its lease were held and
// binds it as the default generator for the test.
func leased(t *testing.T) *nonce.Factory {
	key := sha256.Sum256([]byte("api handler test"))
	f, err := nonce.New(nonce.Config{MachineID: 3, BaseKey: key[:], AwaitLease: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Activate(3, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	prev := once.DefaultGenerator()
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(prev) })
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
			if err := createTable(context.Background(), db, c.d, table); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Exec("DROP TABLE " + table) })
			srv := httptest.NewServer(newHandler(db, c.d, table))
			defer srv.Close()
			checkRoutes(t, srv.URL)

			// No lease: 503, and nothing stored.
			f.Disable()
			if status, body := call(t, "POST", srv.URL+"/users", `{"email":"late@example.com"}`); status != http.StatusServiceUnavailable || body["error"] == "" {
				t.Errorf("POST without a lease: %d %v", status, body)
			}
			var n int
			if err := db.QueryRow("SELECT count(*) FROM " + table + " WHERE email = 'late@example.com'").Scan(&n); err != nil || n != 0 {
				t.Errorf("rows written without a lease: %d %v", n, err)
			}
		})
	}
}

// checkRoutes exercises every route and status code against base.
func checkRoutes(t *testing.T, base string) {
	t.Helper()
	if status, _ := call(t, "GET", base+"/", ""); status != http.StatusOK {
		t.Errorf("GET /: %d", status)
	}
	status, created := call(t, "POST", base+"/users", `{"email":"ada@example.com"}`)
	id, _ := created["id"].(string)
	if status != http.StatusCreated || !strings.HasPrefix(id, "usr_") || len(id) != 15 || created["email"] != "ada@example.com" {
		t.Fatalf("POST /users: %d %v", status, created)
	}
	if status, got := call(t, "GET", base+"/users/"+id, ""); status != http.StatusOK || got["id"] != id || got["email"] != "ada@example.com" {
		t.Errorf("GET /users/%s: %d %v", id, status, got)
	}

	// A valid ID of this type with no row: 404.
	other, err := once.NewAs[UserID]()
	if err != nil {
		t.Fatal(err)
	}
	if status, body := call(t, "GET", base+"/users/"+other.String(), ""); status != http.StatusNotFound || body["error"] == "" {
		t.Errorf("GET unknown ID: %d %v", status, body)
	}

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
		if status, got := call(t, "GET", base+"/users/"+bad, ""); status != http.StatusBadRequest || !strings.HasPrefix(got["error"].(string), "once:") {
			t.Errorf("GET /users/%s: %d %v, want 400 with a once: error", bad, status, got)
		}
	}
	for _, bad := range []string{`{}`, `{"email":"nope"}`, `not json`, `{"email":"a@b.c","admin":true}`} {
		if status, got := call(t, "POST", base+"/users", bad); status != http.StatusBadRequest || got["error"] == "" {
			t.Errorf("POST %s: %d %v, want 400", bad, status, got)
		}
	}
	if status, got := call(t, "GET", base+"/nowhere", ""); status != http.StatusNotFound || got["error"] == "" {
		t.Errorf("GET /nowhere: %d %v", status, got)
	}
	if status, _ := call(t, "DELETE", base+"/users/"+id, ""); status != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d, want 405", status)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatalf("%s %s: bad JSON: %v", method, url, err)
		}
	}
	return resp.StatusCode, m
}
