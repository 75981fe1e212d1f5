package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestPgx runs the example on PostgreSQL: the ID read back through pgx is
// the one inserted, and the database holds its unmasked value.
func TestPgx(t *testing.T) {
	db := testenv.Postgres(t)
	table := testenv.Unique(t, "pgx")
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })
	var out bytes.Buffer
	if err := run(context.Background(), &out, testenv.PostgresDSN(), "", table); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	m := regexp.MustCompile(`(?m)^(usr_\S{11}) ada@example\.com \(stored (-?\d+)\)$`).FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), "\n1 of 1 by = ANY($1)\n") {
		t.Fatalf("unexpected output:\n%s", out.String())
	}
	f, err := nonce.New(nonce.Config{MachineID: 1, BaseKey: []byte(demoKey)})
	if err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
	id, err := once.ParseAs[UserID](m[1])
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := strconv.ParseInt(m[2], 10, 64)
	if id.Int64() != stored || fmt.Sprint(stored) == m[1][4:] {
		t.Errorf("shown %s (value %d), stored %d", m[1], id.Int64(), stored)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM "+table+" WHERE id = $1", stored).Scan(&n); err != nil || n != 1 {
		t.Errorf("rows with id %d: %d (%v)", stored, n, err)
	}
}
