package sqllease_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestAutocommitOff: a MySQL/MariaDB session with autocommit off (the
// DSN's autocommit=0 or autocommit=false, or the server's init_connect)
// leaves a plain UPDATE uncommitted; when the pool closes that connection
// it is rolled back, and another process takes the same machine ID while
// the first keeps generating. Every write of the strategy commits
// whatever the session's autocommit: the claim, the renewal and the
// release all stay written after the connection is gone.
func TestAutocommitOff(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(t *testing.T) (off, plain *sql.DB)
	}{
		{"dsn-autocommit=0", func(t *testing.T) (*sql.DB, *sql.DB) {
			return openMariaDB(t, withParam(testenv.MySQLDSN(), "autocommit", "0")), openDB(t, migrations.MySQL)
		}},
		{"dsn-autocommit=false", func(t *testing.T) (*sql.DB, *sql.DB) {
			return openMariaDB(t, withParam(testenv.MySQLDSN(), "autocommit", "false")), openDB(t, migrations.MySQL)
		}},
		{"init_connect", func(t *testing.T) (*sql.DB, *sql.DB) {
			// init_connect runs for users without SUPER only: a private
			// server, its root making an application user.
			port := startMariaDB(t, nil, "--init-connect=SET autocommit=0")
			root := openMariaDB(t, "root@tcp(127.0.0.1:"+port+")/test")
			for _, q := range []string{"CREATE USER app@'%' IDENTIFIED BY 'app'", "GRANT ALL ON test.* TO app@'%'"} {
				mustExecDB(t, root, q)
			}
			return openMariaDB(t, "app:app@tcp(127.0.0.1:"+port+")/test"), root
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, ctx := migrations.MySQL, ctxT(t)
			off, plain := c.open(t)
			var autocommit int
			if err := off.QueryRowContext(ctx, "SELECT @@autocommit").Scan(&autocommit); err != nil || autocommit != 0 {
				t.Fatalf("@@autocommit = %d, %v; want 0", autocommit, err)
			}
			// The pool closes every connection it is handed back, as it
			// does an idle one after ConnMaxIdleTime: an uncommitted
			// write is then rolled back at once.
			off.SetMaxIdleConns(0)
			table := newTable(t, plain, d)
			opts := sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1}
			a, err := startHolder(t, newStrategy(t, off, opts), 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			b, err := startHolder(t, newStrategy(t, plain, opts), 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			doubleHold(t, "autocommit off", a, b)

			// Renew and Release through the autocommit-off pool stay written.
			s, look := newStrategy(t, off, opts), newStrategy(t, plain, sqllease.Options{Dialect: d, Table: table})
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Renew(ctx, l, 3*time.Hour); err != nil {
				t.Fatal(err)
			}
			if r := rowOf(t, ctx, look, l.MachineID); !r.Held || time.Until(r.ExpiresAt) < 2*time.Hour {
				t.Errorf("row %d after a renewal for 3h: held %v, expires in %v", l.MachineID, r.Held, time.Until(r.ExpiresAt))
			}
			if err := s.Release(ctx, l); err != nil {
				t.Fatal(err)
			}
			waitFree(t, look, l.MachineID)
		})
	}
}

// TestReadOnlySession: a session that cannot write (PostgreSQL's
// default_transaction_read_only, MySQL's transaction_read_only) fails every claim;
// the strategy says so at once (ErrConfig naming the setting) instead of
// retrying until the acquire timeout.
func TestReadOnlySession(t *testing.T) {
	for _, c := range []struct {
		d       migrations.Dialect
		setting string
		open    func(t *testing.T) *sql.DB
	}{
		{migrations.Postgres, "default_transaction_read_only", func(t *testing.T) *sql.DB {
			db, err := sql.Open("pgx", withParam(testenv.PostgresDSN(), "default_transaction_read_only", "on"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
		{migrations.MySQL, "read_only", func(t *testing.T) *sql.DB {
			// MariaDB 10 spells it tx_read_only, MySQL 8 and later transaction_read_only.
			v := "tx_read_only"
			if testenv.OracleMySQL(t, openDB(t, migrations.MySQL)) {
				v = "transaction_read_only"
			}
			return openMariaDB(t, withParam(testenv.MySQLDSN(), v, "1"))
		}},
	} {
		t.Run(c.d.String(), func(t *testing.T) {
			t.Parallel()
			d := c.d
			table := newTable(t, openDB(t, d), d)
			ro := c.open(t)
			began := time.Now()
			_, err := startHolder(t, newStrategy(t, ro, sqllease.Options{Dialect: d, Table: table}), 20*time.Second)
			took := time.Since(began)
			if err == nil || !strings.Contains(err.Error(), c.setting) || took > 10*time.Second || !isConfig(err) {
				t.Fatalf("lease.Start on a read-only session: %v after %v; want ErrConfig naming %s at once", err, took.Round(time.Millisecond), c.setting)
			}
			t.Logf("refused after %v: %v", took.Round(time.Millisecond), err)
			// Reading works; Check, which verifies what a claim needs, refuses.
			s := newStrategy(t, ro, sqllease.Options{Dialect: d, Table: table})
			if _, err := s.List(ctxT(t)); err != nil {
				t.Errorf("List on a read-only session: %v", err)
			}
			if err := s.Check(ctxT(t)); !isConfig(err) {
				t.Errorf("Check on a read-only session: %v; want ErrConfig", err)
			}
		})
	}
}

func isConfig(err error) bool { return errors.Is(err, driver.ErrConfig) }
