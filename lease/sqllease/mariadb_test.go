package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	return startMariaDBOn(t, freePort, env, args...)
}

// freePort returns a loopback port for a server ([testenv.FreePort]).
func freePort(t *testing.T) string { return strconv.Itoa(testenv.FreePort(t)) }

// startMariaDBOn is startMariaDB on a port from pick.
func startMariaDBOn(t *testing.T, pick func(*testing.T) string, env []string, args ...string) string {
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
	// pick only probes: the port can be taken before mariadbd binds it
	// (by another test that picked the same one). A server that exits
	// because its port is in use is started again on another one.
	errLog := filepath.Join(dir, "error.log")
	var port string
	var db *sql.DB
	for attempt := 1; ; attempt++ {
		port = pick(t)
		cmd := exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
			"--socket=" + filepath.Join(dir, "sock"), "--user=" + currentUser(), "--skip-log-bin", "--log-error=" + errLog,
			"--innodb-buffer-pool-size=16M", "--pid-file=" + filepath.Join(dir, "pid")}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
		var err error
		db, err = sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		err = awaitMariaDB(t, db, exited)
		if err == nil {
			break
		}
		log, _ := os.ReadFile(errLog)
		if attempt == 5 || !strings.Contains(string(log), "Address already in use") {
			t.Fatalf("private MariaDB on port %s: %v\n%s", port, err, tail(log, 1500))
		}
		os.Remove(errLog)
	}
	ctx := ctxT(t)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	return port
}

// awaitMariaDB waits up to 60 s for the server behind db to answer, and
// gives up as soon as its process exits. Each ping has 2 s: whatever took
// the port may accept a connection and never answer.
func awaitMariaDB(t *testing.T, db *sql.DB, exited <-chan struct{}) error {
	base := ctxT(t)
	deadline := time.After(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(base, 2*time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("mariadbd exited")
		case <-deadline:
			return fmt.Errorf("did not start within 60 s: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
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
