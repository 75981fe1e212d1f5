package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, run(context.Background(), &out, testenv.PostgresDSN(), "", table), "output:\n%s", out.String())
	m := regexp.MustCompile(`(?m)^(usr_\S{11}) ada@example\.com \(stored (-?\d+)\)$`).FindStringSubmatch(out.String())
	require.NotNil(t, m, "unexpected output:\n%s", out.String())
	require.Contains(t, out.String(), "\n1 of 1 by = ANY($1)\n", "unexpected output")
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1, BaseKey: []byte(demoKey), AllowDemoKey: true})
	require.NoError(t, err)
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	id, err := once.ParseAs[UserID](m[1])
	require.NoError(t, err)
	stored, _ := strconv.ParseInt(m[2], 10, 64)
	assert.Equal(t, stored, id.Int64(), "shown %s, stored", m[1])
	assert.NotEqual(t, fmt.Sprint(stored), m[1][4:], "shown %s: the stored value unmasked", m[1])
	var n int
	if assert.NoError(t, db.QueryRow("SELECT count(*) FROM "+table+" WHERE id = $1", stored).Scan(&n), "rows with id %d", stored) {
		assert.Equal(t, 1, n, "rows with id %d", stored)
	}
}
