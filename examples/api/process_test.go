package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// TestMain removes the binary the process tests build.
func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// apiBinary builds the API once per test run and returns its path.
func apiBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "once-api-test-"); build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "api")
		gobin, err := exec.LookPath("go")
		if err != nil {
			gobin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		if out, err := exec.Command(gobin, "build", "-o", build.bin, ".").CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, build.err)
	return build.bin
}

// apiProcess is the API binary running.
type apiProcess struct {
	cmd    *exec.Cmd
	base   string      // http://host:port
	lines  chan string // stdout after the listening line
	stderr *strings.Builder
	exited chan struct{} // closed once the process has exited
	err    error         // of the exit, set before exited is closed
}

// startAPI runs the API binary in dir with env added to the test's
// environment and waits until it listens (it then holds its machine ID).
func startAPI(t *testing.T, dir string, env ...string) (*apiProcess, error) {
	t.Helper()
	cmd := exec.Command(apiBinary(t))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"ADDR=127.0.0.1:0", "ONCE_KEY=smoke-test-key-smoke-test-key-smoke-test-key"}, env...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &apiProcess{cmd: cmd, lines: make(chan string, 64), stderr: &strings.Builder{}, exited: make(chan struct{})}
	cmd.Stderr = &lockedWriter{w: p.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = cmd.Wait()
		close(p.exited)
	}()
	timeout := time.After(60 * time.Second)
	for p.base == "" {
		select {
		case l, ok := <-p.lines:
			if !ok {
				<-p.exited
				return nil, fmt.Errorf("the API exited before listening: %v\nstderr:\n%s", p.err, p.stderrText())
			}
			if a, ok := strings.CutPrefix(l, "listening on "); ok {
				p.base = a
			}
		case <-timeout:
			p.kill()
			return nil, fmt.Errorf("the API did not listen within 60s\nstderr:\n%s", p.stderrText())
		}
	}
	return p, nil
}

func (p *apiProcess) stderrText() string {
	w := p.cmd.Stderr.(*lockedWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return p.stderr.String()
}

// kill ends the process with SIGKILL, unless it has exited, and waits
// for it.
func (p *apiProcess) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	go func() {
		for range p.lines {
		}
	}()
	<-p.exited
}

// wait waits up to timeout for the exit (SIGKILL after it); it returns the
// lines printed meanwhile and the exit error.
func (p *apiProcess) wait(timeout time.Duration) ([]string, error) {
	var rest []string
	t := time.After(timeout)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				<-p.exited
				return rest, p.err
			}
			rest = append(rest, l)
		case <-t:
			p.kill()
			return rest, fmt.Errorf("no exit within %v", timeout)
		}
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

// postgresURL returns a DATABASE_URL for the API on a fresh PostgreSQL
// schema of its own (dropped at the end), and a connection to it.
func postgresURL(t *testing.T) (string, *sql.DB) {
	t.Helper()
	db, dsn := testenv.PostgresSchema(t, "api")
	require.True(t, strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"), "ONCE_TEST_POSTGRES_DSN must be a postgres:// URL here, not %.30q", dsn)
	return dsn, db
}

// leaseRows returns the lease table's rows as db sees them.
func leaseRows(t *testing.T, db *sql.DB, d migrations.Dialect) []sqllease.Row {
	t.Helper()
	st, err := sqllease.New(db, sqllease.Options{Dialect: d})
	require.NoError(t, err)
	rows, err := st.Rows(context.Background())
	require.NoError(t, err)
	return rows
}
