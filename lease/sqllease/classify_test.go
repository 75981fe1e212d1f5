package sqllease

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
)

// TestClassifyServerErrors feeds classify the errors real servers return
// through their real drivers, so the driver-free inspection (SQLState
// method, MySQL Number field, SQLite Code method) is checked against the
// actual error types.
func TestClassifyServerErrors(t *testing.T) {
	type probe struct {
		name, query string
		want        error
	}
	cases := []struct {
		name   string
		open   func(testing.TB) *sql.DB
		probes []probe
	}{
		{"postgres", testenv.Postgres, []probe{
			{"syntax 42601", "SELEC 1", driver.ErrConfig},
			{"undefined table 42P01", "SELECT * FROM once_no_such_table_x", driver.ErrConfig},
			{"undefined column 42703", "SELECT no_such_column FROM pg_class", driver.ErrConfig},
			{"unknown function 42883", "SELECT no_such_function()", driver.ErrConfig},
			{"serialization 40001", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40001'; END $$", driver.ErrRetry},
			{"deadlock 40P01", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40P01'; END $$", driver.ErrRetry},
			{"too many connections 53300", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '53300'; END $$", driver.ErrRetry},
			{"admin shutdown 57P01", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '57P01'; END $$", driver.ErrRetry},
			{"read-only 25006", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '25006'; END $$", driver.ErrRetry},
			{"privilege 42501", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '42501'; END $$", driver.ErrConfig},
			{"statement timeout 57014", "SET LOCAL statement_timeout = 1; SELECT pg_sleep(1)", driver.ErrRetry},
		}},
		{"mysql", testenv.MySQL, []probe{
			{"syntax 1064", "SELEC 1", driver.ErrConfig},
			{"no such table 1146", "SELECT * FROM once_no_such_table_x", driver.ErrConfig},
			{"unknown column 1054", "SELECT no_such_column FROM DUAL", driver.ErrConfig},
			{"deadlock 1213", "SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'x'", driver.ErrRetry},
			{"lock wait timeout 1205", "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1205, MESSAGE_TEXT = 'x'", driver.ErrRetry},
			{"too many connections 1040", "SIGNAL SQLSTATE '08004' SET MYSQL_ERRNO = 1040, MESSAGE_TEXT = 'x'", driver.ErrRetry},
			{"read-only 1290", "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1290, MESSAGE_TEXT = 'x'", driver.ErrRetry},
			{"table access denied 1142", "SIGNAL SQLSTATE '42000' SET MYSQL_ERRNO = 1142, MESSAGE_TEXT = 'x'", driver.ErrConfig},
			{"access denied 1045", "SIGNAL SQLSTATE '28000' SET MYSQL_ERRNO = 1045, MESSAGE_TEXT = 'x'", driver.ErrConfig},
		}},
		{"sqlite", testenv.SQLite, []probe{
			{"syntax", "SELEC 1", driver.ErrConfig},
			{"no such table", "SELECT * FROM once_no_such_table_x", driver.ErrConfig},
			{"no such column", "SELECT no_such_column", driver.ErrConfig},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := c.open(t)
			for _, p := range c.probes {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				err := runProbe(ctx, db, p.query)
				cancel()
				if err == nil {
					t.Errorf("%s: %q succeeded", p.name, p.query)
					continue
				}
				got := classify("probe", "once_leases", err)
				other := driver.ErrRetry
				if p.want == driver.ErrRetry {
					other = driver.ErrConfig
				}
				if !errors.Is(got, p.want) || errors.Is(got, other) || !errors.Is(got, err) {
					t.Errorf("%s: classify(%v) = %v; want %v", p.name, err, got, p.want)
				}
			}
		})
	}
}

// runProbe runs q; "SET LOCAL ...; q2" runs both in one transaction.
func runProbe(ctx context.Context, db *sql.DB, q string) error {
	if len(q) > 9 && q[:9] == "SET LOCAL" {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		i := 0
		for q[i] != ';' {
			i++
		}
		if _, err := tx.ExecContext(ctx, q[:i]); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, q[i+1:])
		return err
	}
	_, err := db.ExecContext(ctx, q)
	return err
}

// TestClassifyTransport: errors that are not the server's verdict on the
// statement are retry, and stay matchable.
func TestClassifyTransport(t *testing.T) {
	dead := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, err := range []error{
		context.DeadlineExceeded,
		context.Canceled,
		fmt.Errorf("wrapped: %w", context.DeadlineExceeded),
		sqldriver.ErrBadConn,
		sql.ErrConnDone,
		errors.New("sql: database is closed"),
		dead,
		fmt.Errorf("failed to connect: %w", dead),
		io.EOF,
		io.ErrUnexpectedEOF,
		errors.New("invalid connection"),
		errors.New("something nobody expected"),
	} {
		got := classify("probe", "once_leases", err)
		if !errors.Is(got, driver.ErrRetry) || errors.Is(got, driver.ErrConfig) || !errors.Is(got, err) {
			t.Errorf("classify(%v) = %v; want ErrRetry wrapping it", err, got)
		}
	}
	if classify("probe", "t", nil) != nil {
		t.Error("classify(nil) != nil")
	}
	// Errors already classified keep their class.
	for _, sentinel := range []error{driver.ErrConfig, driver.ErrLost} {
		if got := classify("probe", "t", fmt.Errorf("x: %w", sentinel)); !errors.Is(got, sentinel) || errors.Is(got, driver.ErrRetry) {
			t.Errorf("classify(%v) = %v", sentinel, got)
		}
	}
}

// TestFailEndedContext: once the call's context has ended, whatever the
// driver said is retry and matches the context's error.
func TestFailEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := fail(ctx, "probe", "t", errors.New("database is locked (5) (SQLITE_BUSY)"))
	if !errors.Is(got, driver.ErrRetry) || !errors.Is(got, context.Canceled) {
		t.Errorf("fail = %v", got)
	}
}
