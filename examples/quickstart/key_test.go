package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var testGen once.Binding

type rawKeySpec struct{}

func (rawKeySpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &testGen}
}

// TestKeyRawBytes: ONCE_KEY is the base key byte for byte (as the Elixir
// library reads it): the IDs the quickstart shows are the stored values
// masked with a factory keyed by exactly those bytes, and the output tells
// how to make such a key.
func TestKeyRawBytes(t *testing.T) {
	const key = "3f9a1c0e5b7d2a4968f0c1e3b5d7a9c2e4f6081a3c5e7092b4d6f8a0c2e4f607" // openssl rand -hex 32
	var out bytes.Buffer
	url := "sqlite:" + filepath.Join(t.TempDir(), "key.db")
	require.NoError(t, run(context.Background(), &out, url, key, "key_users"), "output:\n%s", out.String())
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1, BaseKey: []byte(key)})
	require.NoError(t, err)
	testGen.Set(f)
	rows := regexp.MustCompile(`(?m)^(\{.*\})\s+(-?\d+)$`).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, rows, 3, "rows in the output:\n%s", out.String())
	for _, r := range rows {
		var u struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(r[1]), &u))
		stored, err := strconv.ParseInt(r[2], 10, 64)
		require.NoError(t, err)
		want := once.Typed[rawKeySpec](once.FromInt64(stored)).String()
		assert.Equal(t, want, u.ID, "stored %d shown, want it masked with the raw ONCE_KEY bytes", stored)
	}
	assert.NotContains(t, out.String(), "NOTE", "demo-key note printed with ONCE_KEY set")

	out.Reset()
	require.NoError(t, run(context.Background(), &out, url, "", "key_users2"))
	s := out.String()
	assert.Contains(t, s, "openssl rand -hex 32", "demo-key note should suggest a key used as is")
	assert.NotContains(t, s, "base64", "demo-key note should suggest a key used as is")
}

// TestParseDatabaseURL covers every DATABASE_URL form.
func TestParseDatabaseURL(t *testing.T) {
	for _, c := range []struct{ in, driver, dsn string }{
		{"sqlite:/tmp/a.db", "sqlite", "file:/tmp/a.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"},
		{"sqlite:///tmp/a.db", "sqlite", "file:/tmp/a.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"},
		{"postgres://u:p@h:5432/db?sslmode=disable", "pgx", "postgres://u:p@h:5432/db?sslmode=disable"},
		{"host=h user=u dbname=db sslmode=disable", "pgx", "host=h user=u dbname=db sslmode=disable"},
		{"mysql://root@tcp(127.0.0.1:3306)/test", "mysql", "root@tcp(127.0.0.1:3306)/test?parseTime=true"},
		{"root@tcp(127.0.0.1:3306)/test", "mysql", "root@tcp(127.0.0.1:3306)/test?parseTime=true"},
		{"mysql://u:p@db.example:3307/app?timeout=5s", "mysql", "u:p@tcp(db.example:3307)/app?parseTime=true&timeout=5s"},
		{"mysql://u@db.example/app", "mysql", "u@tcp(db.example:3306)/app?parseTime=true"},
	} {
		got, err := parseDatabaseURL(c.in)
		if assert.NoError(t, err, "%q", c.in) {
			assert.Equal(t, c.driver, got.driver, "%q: driver", c.in)
			assert.Equal(t, c.dsn, got.dsn, "%q: dsn", c.in)
		}
		assert.NotContains(t, got.where, ":p@", "%q: description shows the password", c.in)
	}
	for _, bad := range []string{"redis://x", "sqlite:", "mysql://u@tcp(/x", "nonsense"} {
		_, err := parseDatabaseURL(bad)
		assert.Error(t, err, "%q: no error", bad)
	}
}

// TestPublicKeyRefused: the quickstart opts in to its demo key only while
// ONCE_KEY is unset; ONCE_KEY set to that key, or to the placeholder of the
// Kubernetes manifests, is refused before anything is leased, and the
// message does not echo it.
func TestPublicKeyRefused(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "public.db")
	for _, key := range []string{demoKey, "replace-me-with-openssl-rand-base64-32-output"} {
		var out bytes.Buffer
		err := run(context.Background(), &out, url, key, "public_users")
		require.ErrorIs(t, err, nonce.ErrConfig, "ONCE_KEY=%s accepted; output:\n%s", key, out.String())
		assert.Contains(t, err.Error(), "openssl rand -hex 32")
		assert.NotContains(t, err.Error()+out.String(), key)
		assert.NotContains(t, out.String(), "lease     machine ID", "a lease was taken with a public key")
	}
}
