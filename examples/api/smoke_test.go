package main

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/migrations"
)

// TestSmoke builds the real binary, runs it on a fresh SQLite file, hits
// every route, stops it with SIGTERM and checks that the lease was released.
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "api.db")
	p, err := startAPI(t, dir, "DATABASE_URL=sqlite:"+dbPath)
	require.NoError(t, err)
	defer p.kill()
	leased(t) // checkRoutes makes an ID of its own for the 404 case
	checkRoutes(t, p.base)

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	rest, err := p.wait(20 * time.Second)
	require.NoError(t, err, "exit after SIGTERM (%q)\nstderr:\n%s", rest, p.stderrText())
	assert.Contains(t, strings.Join(rest, "\n"), "lease released", "output after SIGTERM")
	_, err = http.Get(p.base + "/")
	assert.Error(t, err, "still answering after exit")

	// The lease table says no machine ID is held any more, and one was.
	db, err := sql.Open("sqlite", "file:"+dbPath)
	require.NoError(t, err)
	defer db.Close()
	used := 0
	for _, r := range leaseRows(t, db, migrations.SQLite) {
		assert.False(t, r.Held, "machine ID %d still held after shutdown", r.ID)
		if r.Token != nil {
			used++
		}
	}
	assert.Equal(t, 1, used, "lease rows ever taken")
}
