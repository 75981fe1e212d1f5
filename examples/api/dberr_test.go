package main

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/once"
)

// TestDuplicateKey: a create whose key is already stored (two processes
// on one machine ID would make such a key) answers 409 with a message of
// the API's own. The database's message names the stored bigint on MySQL
// and MariaDB (Duplicate entry '...'); the answer carries neither it nor
// the database's text, on any database.
func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct {
		name string
		d    migrations.Dialect
		open func(testing.TB) *sql.DB
	}{
		{"sqlite", migrations.SQLite, testenv.SQLite},
		{"postgres", migrations.Postgres, testenv.Postgres},
		{"mariadb", migrations.MySQL, testenv.MySQL},
		{"mysql", migrations.MySQL, testenv.MySQL9},
	} {
		t.Run(c.name, func(t *testing.T) {
			leased(t)
			db := c.open(t)
			table := testenv.Unique(t, "apid")
			require.NoError(t, createTable(context.Background(), db, c.d, table))
			t.Cleanup(func() { db.Exec("DROP TABLE " + table) })
			srv := httptest.NewServer(newHandler(db, c.d, table))
			defer srv.Close()

			// The counter nonce after id is id+1 unless id's 13-bit count
			// is full (then the count carries into the timestamp).
			id, err := once.NewAs[UserID]()
			require.NoError(t, err)
			for id.Uint64()&8191 == 8191 {
				id, err = once.NewAs[UserID]()
				require.NoError(t, err)
			}
			next := UserID(once.FromUint64(id.Uint64() + 1))
			stored := strconv.FormatInt(next.Int64(), 10)
			insert := "INSERT INTO " + table + " (id, email) VALUES (?, ?)"
			if c.d == migrations.Postgres {
				insert = "INSERT INTO " + table + " (id, email) VALUES ($1, $2)"
			}
			_, err = db.Exec(insert, next, "first@example.com")
			require.NoError(t, err, "the row holding the next key")

			// What the database says about it.
			_, dbErr := db.Exec(insert, next, "again@example.com")
			require.True(t, isUniqueViolation(dbErr), "a second row under %s: %v, want a unique violation", stored, dbErr)
			if c.d == migrations.MySQL {
				assert.Contains(t, dbErr.Error(), stored, "MySQL's message quotes the stored key")
			}

			req, err := http.NewRequest("POST", srv.URL+"/users", strings.NewReader(`{"email":"second@example.com"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			assert.Equal(t, http.StatusConflict, resp.StatusCode, "POST under a stored key: %s", body)
			assert.Contains(t, string(body), `"error":`, "POST under a stored key: a JSON error")
			assert.NotContains(t, string(body), stored, "the answer names the stored key")
			assert.NotContains(t, string(body), next.String(), "the answer names the key")
			for _, db := range []string{"duplicate", "Duplicate", "UNIQUE", "SQLSTATE", "constraint"} {
				assert.NotContains(t, string(body), db, "the answer carries the database's message")
			}
			var n int
			require.NoError(t, db.QueryRow("SELECT count(*) FROM "+table).Scan(&n))
			assert.Equal(t, 1, n, "rows")
		})
	}
}

// TestClientSentID: a body with an "id" is refused (400), whatever the id;
// the key of a user is always the server's.
func TestClientSentID(t *testing.T) {
	leased(t)
	db := testenv.SQLite(t)
	table := testenv.Unique(t, "apic")
	require.NoError(t, createTable(context.Background(), db, migrations.SQLite, table))
	srv := httptest.NewServer(newHandler(db, migrations.SQLite, table))
	defer srv.Close()
	status, got := call(t, "POST", srv.URL+"/users", `{"id":"usr_AAAAAAAAAAA","email":"mallory@example.com"}`)
	assert.Equal(t, http.StatusBadRequest, status, "POST with an id: %v", got)
	assert.Contains(t, got["error"], `unknown field "id"`, "POST with an id")
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM "+table).Scan(&n))
	assert.Zero(t, n, "rows")
}
