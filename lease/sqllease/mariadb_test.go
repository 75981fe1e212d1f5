package sqllease_test

import (
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
)

// privateMariaDB starts a MariaDB server of its own (the machine's
// binaries, a fresh data directory, a free loopback port, no grant
// tables) whose operating-system time zone is tz, so that its default
// time zone (time_zone = SYSTEM) is tz, and stops it when t ends. The
// shared server's configuration stays untouched.
func privateMariaDB(t *testing.T, tz string) *sql.DB {
	t.Helper()
	port := startMariaDB(t, []string{"TZ=" + tz}, "--skip-grant-tables")
	return openMariaDB(t, "root@tcp(127.0.0.1:"+port+")/test")
}

// startMariaDB starts a private MariaDB server (see privateMariaDB) with
// extra environment variables and server options, creates database
// "test" as root (whose password is empty) and returns the port.
func startMariaDB(t *testing.T, env []string, args ...string) string {
	t.Helper()
	testenv.Short(t, "a private MariaDB server")
	install, err1 := exec.LookPath("mariadb-install-db")
	server, err2 := exec.LookPath("mariadbd")
	if err1 != nil || err2 != nil {
		testenv.Unavailable(t, "mariadb-install-db or mariadbd not installed")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user="+currentUser(),
		"--auth-root-authentication-method=normal", "--skip-test-db").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
		"--socket=" + filepath.Join(dir, "sock"), "--user=" + currentUser(), "--skip-log-bin",
		"--innodb-buffer-pool-size=16M", "--pid-file=" + filepath.Join(dir, "pid")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := ctxT(t)
	for deadline := time.Now().Add(60 * time.Second); db.PingContext(ctx) != nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("private MariaDB did not start within 60 s")
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	return port
}

// openMariaDB opens dsn and closes the pool when t ends.
func openMariaDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}
