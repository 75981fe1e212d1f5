package main

import (
	"bufio"
	"context"
	"database/sql"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestSmoke builds the real binary, runs it on a fresh SQLite file, hits
// every route, stops it with SIGTERM and checks that the lease was released.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "api")
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dbPath := filepath.Join(dir, "api.db")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL=sqlite:"+dbPath, "ADDR=127.0.0.1:0",
		"ONCE_KEY=smoke-test-key-smoke-test-key-smoke-test-key")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})

	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	base := ""
	timeout := time.After(30 * time.Second)
	for base == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the API exited before listening")
			}
			t.Log(l)
			if a, ok := strings.CutPrefix(l, "listening on "); ok {
				base = a
			}
		case <-timeout:
			t.Fatal("the API did not start listening within 30s")
		}
	}
	leased(t) // checkRoutes makes an ID of its own for the 404 case
	checkRoutes(t, base)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var rest []string
	select {
	case err := <-done:
		killed = true
		for l := range lines {
			rest = append(rest, l)
		}
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v (%q)", err, rest)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the API did not exit within 20s of SIGTERM")
	}
	if !strings.Contains(strings.Join(rest, "\n"), "lease released") {
		t.Errorf("output after SIGTERM %q, want \"lease released\"", rest)
	}
	if _, err := http.Get(base + "/"); err == nil {
		t.Error("still answering after exit")
	}

	// The lease table says no machine ID is held any more, and one was.
	db, err := sql.Open("sqlite", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := sqllease.New(db, sqllease.Options{Dialect: migrations.SQLite})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, r := range rows {
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
