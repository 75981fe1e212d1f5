// Package testenv finds the services that integration tests run against.
//
// Each accessor returns a ready connection (or address) to the service at its
// default loopback address, overridable by an environment variable. When the
// service cannot be reached the test is skipped with a one-line reason, unless
// ONCE_TEST_REQUIRE=1, in which case it fails: a green CI run means every
// integration test ran. With -short (the fast path, .ci/fast) every accessor
// skips before it connects, and so do the tests' helpers that start private
// servers ([Short]): -short runs no service, even with ONCE_TEST_REQUIRE=1.
//
//	ONCE_TEST_REQUIRE=1          fail instead of skip when a service is down
//	ONCE_TEST_POSTGRES_DSN       default postgres://postgres@127.0.0.1:5432/test?sslmode=disable
//	ONCE_TEST_MYSQL_DSN          default root@tcp(127.0.0.1:3306)/test?parseTime=true (MariaDB)
//	ONCE_TEST_MYSQL9_DSN         default root@tcp(127.0.0.1:3307)/test?parseTime=true (Oracle
//	                             MySQL 9: no RETURNING; started by .ci/mysql.sh start)
//	ONCE_TEST_REDIS7_ADDR        default 127.0.0.1:6379 (Redis 7: key mode only)
//	ONCE_TEST_REDIS8_ADDR        default 127.0.0.1:6380 (Redis 8: HSETEX)
//	ONCE_TEST_VALKEY9_ADDR       default 127.0.0.1:6381 (Valkey 9: HSETEX)
//	ONCE_TEST_VALKEY9_OPTIONAL=1 skip Valkey 9 tests even when required (set by
//	                             .ci/run only when Valkey 9 could not be fetched)
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // registers "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/once-go/once/internal/sqlitedrv"
)

// Default service addresses.
const (
	DefaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	DefaultMySQLDSN    = "root@tcp(127.0.0.1:3306)/test?parseTime=true"
	DefaultMySQL9DSN   = "root@tcp(127.0.0.1:3307)/test?parseTime=true"
	DefaultRedis7Addr  = "127.0.0.1:6379"
	DefaultRedis8Addr  = "127.0.0.1:6380"
	DefaultValkey9Addr = "127.0.0.1:6381"
)

// Required reports whether ONCE_TEST_REQUIRE=1: unreachable services fail tests.
func Required() bool { return os.Getenv("ONCE_TEST_REQUIRE") == "1" }

// Short skips t under -short, whose runs use no service; what names the
// service t needs, a shared one or a private server the test starts. The
// accessors here call it, and so do the tests' helpers that start servers.
func Short(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs " + what)
	}
}

// Unavailable skips t with reason, or fails it when services are required.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if Required() {
		t.Fatalf("ONCE_TEST_REQUIRE=1 but %s", reason)
	}
	t.Skip(reason)
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// PostgresDSN is the DSN integration tests use for PostgreSQL.
func PostgresDSN() string { return env("ONCE_TEST_POSTGRES_DSN", DefaultPostgresDSN) }

// MySQLDSN is the DSN integration tests use for MySQL/MariaDB.
func MySQLDSN() string { return env("ONCE_TEST_MYSQL_DSN", DefaultMySQLDSN) }

// MySQL9DSN is the DSN integration tests use for Oracle MySQL.
func MySQL9DSN() string { return env("ONCE_TEST_MYSQL9_DSN", DefaultMySQL9DSN) }

// Postgres opens PostgreSQL through pgx's database/sql driver ("pgx") and
// closes it when the test ends.
func Postgres(t testing.TB) *sql.DB {
	t.Helper()
	return open(t, "pgx", PostgresDSN(), "PostgreSQL")
}

// MySQL opens MySQL/MariaDB through go-sql-driver/mysql and closes it when
// the test ends.
func MySQL(t testing.TB) *sql.DB {
	t.Helper()
	return open(t, "mysql", MySQLDSN(), "MariaDB/MySQL")
}

// MySQL9 opens Oracle MySQL (9.x, without RETURNING) through
// go-sql-driver/mysql and closes it when the test ends.
func MySQL9(t testing.TB) *sql.DB {
	t.Helper()
	return open(t, "mysql", MySQL9DSN(), "MySQL 9 (.ci/mysql.sh starts it)")
}

// SQLitePath returns a fresh database file path in the test's temp dir.
func SQLitePath(t testing.TB) string {
	t.Helper()
	return t.TempDir() + "/test.db"
}

// SQLiteDSN turns a file path into a DSN for the module's SQLite driver with
// a busy timeout, so concurrent writers wait instead of failing at once.
func SQLiteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
}

// SQLite opens a fresh SQLite database file (embedded, always available).
// Its first connection is opened before the pool is returned: it switches
// the new file to WAL, which takes an exclusive lock that SQLite does not
// wait for (busy_timeout notwithstanding), so connections opening at the
// same moment on a file still in rollback mode could fail with
// SQLITE_BUSY. Once the file is in WAL mode the pragma changes nothing.
func SQLite(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open(sqlitedrv.DriverName, SQLiteDSN(SQLitePath(t)))
	if err != nil {
		t.Fatalf("testenv: open sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("testenv: open sqlite: %v", err)
	}
	return db
}

func open(t testing.TB, driver, dsn, what string) *sql.DB {
	t.Helper()
	Short(t, what)
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("testenv: open %s: %v", what, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		Unavailable(t, what+" unreachable: "+firstLine(err.Error()))
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Server names a Redis-protocol server used by the tests.
type Server int

// The Redis-protocol servers the tests know.
const (
	Redis7 Server = iota
	Redis8
	Valkey9
)

func (s Server) String() string {
	switch s {
	case Redis7:
		return "Redis 7"
	case Redis8:
		return "Redis 8"
	case Valkey9:
		return "Valkey 9"
	}
	return "unknown server"
}

// RedisAddr is the address integration tests use for s.
func RedisAddr(s Server) string {
	switch s {
	case Redis8:
		return env("ONCE_TEST_REDIS8_ADDR", DefaultRedis8Addr)
	case Valkey9:
		return env("ONCE_TEST_VALKEY9_ADDR", DefaultValkey9Addr)
	}
	return env("ONCE_TEST_REDIS7_ADDR", DefaultRedis7Addr)
}

// Redis returns the address of s after checking that it answers PING.
func Redis(t testing.TB, s Server) string {
	t.Helper()
	Short(t, s.String())
	addr := RedisAddr(s)
	if err := ping(addr); err != nil {
		reason := s.String() + " unreachable at " + addr + ": " + firstLine(err.Error())
		if s == Valkey9 && os.Getenv("ONCE_TEST_VALKEY9_OPTIONAL") == "1" {
			t.Skip(reason + " (Valkey 9 could not be fetched on this machine)")
		}
		Unavailable(t, reason+" (start it with ../shared/tools/kv-servers.sh start)")
	}
	return addr
}

// ping speaks just enough RESP to check a server answers, so this package
// needs no Redis client.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(string(buf[:n]), "+PONG") {
		return &net.AddrError{Err: "unexpected reply " + strings.TrimSpace(string(buf[:n])), Addr: addr}
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^a-z0-9_]+`)

// Unique returns a lowercase name, safe as an SQL table or Redis key name,
// that no other test run uses: prefix, a slug of the test name and random hex.
func Unique(t testing.TB, prefix string) string {
	t.Helper()
	slug := unsafeName.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(slug) > 20 {
		slug = slug[len(slug)-20:]
	}
	var b [4]byte
	rand.Read(b[:])
	return strings.Trim(prefix+"_"+slug, "_") + "_" + hex.EncodeToString(b[:])
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// DeadAddr returns a loopback host:port that nobody listens on (a port
// the kernel just handed out and that was closed again), for tests of an
// unreachable coordinator.
func DeadAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
