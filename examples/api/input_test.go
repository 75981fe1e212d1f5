package main

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// TestMalformedInput: malformed text, trailing data, a content type other
// than JSON and addresses that are not local@domain are 400 with a JSON
// error on every database, and nothing is stored.
func TestMalformedInput(t *testing.T) {
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
			leased(t)
			db := c.open(t)
			table := testenv.Unique(t, "apim")
			require.NoError(t, createTable(context.Background(), db, c.d, table))
			t.Cleanup(func() { db.Exec("DROP TABLE " + table) })
			srv := httptest.NewServer(newHandler(db, c.d, table))
			defer srv.Close()

			long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".com" // 254 bytes
			for _, bad := range []struct{ body, contentType string }{
				{`{"email":"a\u0000b@example.com"}`, "application/json"},             // NUL
				{`{"email":"a\u0007b@example.com"}`, "application/json"},             // control character
				{`{"email":"ab@example.com\n"}`, "application/json"},                 // newline
				{"{\"email\":\"a\xffb@example.com\"}", "application/json"},           // invalid UTF-8
				{`{"email":"a\ud800b@example.com"}`, "application/json"},             // lone surrogate
				{`{"email":"ada@example.com"} x`, "application/json"},                // trailing data
				{`{"email":"ada@example.com"}{}`, "application/json"},                // a second value
				{`{"email":"ada@example.com"}`, "text/plain"},                        // not JSON
				{`{"email":"ada@example.com"}`, "application/x-www-form-urlencoded"}, // curl -d's default
				{`{"email":"ada@example.com"}`, ""},                                  // no content type
				{`{"email":"@"}`, "application/json"},
				{`{"email":"ada@"}`, "application/json"},
				{`{"email":"@example.com"}`, "application/json"},
				{`{"email":"a@b@example.com"}`, "application/json"},
				{`{"email":"x` + long + `"}`, "application/json"}, // 255 bytes
			} {
				status, got := post(t, srv.URL+"/users", bad.body, bad.contentType)
				assert.Equal(t, http.StatusBadRequest, status, "POST %q (%s): %v", bad.body, bad.contentType, got)
				assert.NotNil(t, got["error"], "POST %q (%s): %d %v, want a JSON error", bad.body, bad.contentType, status, got)
			}
			var n int
			if assert.NoError(t, db.QueryRow("SELECT count(*) FROM "+table).Scan(&n), "rows stored") {
				assert.Zero(t, n, "rows stored")
			}

			for _, good := range []struct{ body, contentType string }{
				{`{"email":"` + long + `"}`, "application/json"},
				{`{"email":"ada@example.com"}` + "\n", "application/json; charset=utf-8"},
				{`{"email":"zoë@exämple.com"}`, "application/json"},
			} {
				status, got := post(t, srv.URL+"/users", good.body, good.contentType)
				assert.Equal(t, http.StatusCreated, status, "POST %q (%s): %v", good.body, good.contentType, got)
			}
		})
	}
}

// TestServerTimeouts: the server bounds every phase of a connection, so a
// client that stops half way through a body cannot hold it open.
func TestServerTimeouts(t *testing.T) {
	s := newServer(http.NotFoundHandler())
	assert.Positive(t, s.ReadHeaderTimeout, "server ReadHeaderTimeout")
	assert.Positive(t, s.ReadTimeout, "server ReadTimeout")
	assert.Positive(t, s.WriteTimeout, "server WriteTimeout")
	assert.Positive(t, s.IdleTimeout, "server IdleTimeout")
	assert.Positive(t, s.MaxHeaderBytes, "server MaxHeaderBytes")
}
