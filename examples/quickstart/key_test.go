package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var testGen once.Binding

type rawKeyKind struct{}

func (rawKeyKind) Options() once.Options {
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
	if err := run(context.Background(), &out, url, key, "key_users"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	f, err := nonce.New(nonce.Config{MachineID: 1, BaseKey: []byte(key)})
	if err != nil {
		t.Fatal(err)
	}
	testGen.Set(f)
	rows := regexp.MustCompile(`(?m)^(\{.*\})\s+(-?\d+)$`).FindAllStringSubmatch(out.String(), -1)
	if len(rows) != 3 {
		t.Fatalf("want 3 rows:\n%s", out.String())
	}
	for _, r := range rows {
		var u struct{ ID string }
		if err := json.Unmarshal([]byte(r[1]), &u); err != nil {
			t.Fatal(err)
		}
		stored, err := strconv.ParseInt(r[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if want := once.Typed[rawKeyKind](once.FromInt64(stored)).String(); u.ID != want {
			t.Errorf("stored %d shown as %s, want %s (masked with the raw ONCE_KEY bytes)", stored, u.ID, want)
		}
	}
	if strings.Contains(out.String(), "NOTE") {
		t.Errorf("demo-key note printed with ONCE_KEY set:\n%s", out.String())
	}

	out.Reset()
	if err := run(context.Background(), &out, url, "", "key_users2"); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "openssl rand -hex 32") || strings.Contains(s, "base64") {
		t.Errorf("demo-key note should suggest a key used as is:\n%s", s)
	}
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
		if err != nil || got.driver != c.driver || got.dsn != c.dsn {
			t.Errorf("%q: %+v %v, want %s %s", c.in, got, err, c.driver, c.dsn)
		}
		if strings.Contains(got.where, ":p@") {
			t.Errorf("%q: description shows the password: %s", c.in, got.where)
		}
	}
	for _, bad := range []string{"redis://x", "sqlite:", "mysql://u@tcp(/x", "nonsense"} {
		if _, err := parseDatabaseURL(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
