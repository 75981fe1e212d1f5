package main

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/migrations"
)

// TestSmoke builds the real binary, runs it on a fresh SQLite file, hits
// every route, stops it with SIGTERM and checks that the lease was released.
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "api.db")
	p, err := startAPI(t, dir, "DATABASE_URL=sqlite:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	leased(t) // checkRoutes makes an ID of its own for the 404 case
	checkRoutes(t, p.base)

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, err := p.wait(20 * time.Second)
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v (%q)\nstderr:\n%s", err, rest, p.stderrText())
	}
	if !strings.Contains(strings.Join(rest, "\n"), "lease released") {
		t.Errorf("output after SIGTERM %q, want \"lease released\"", rest)
	}
	if _, err := http.Get(p.base + "/"); err == nil {
		t.Error("still answering after exit")
	}

	// The lease table says no machine ID is held any more, and one was.
	db, err := sql.Open("sqlite", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	used := 0
	for _, r := range leaseRows(t, db, migrations.SQLite) {
		if r.Held {
			t.Errorf("machine ID %d still held after shutdown", r.ID)
		}
		if r.Token != nil {
			used++
		}
	}
	if used != 1 {
		t.Errorf("%d lease rows were ever taken, want 1", used)
	}
}
