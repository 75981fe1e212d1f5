package sqllease_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestSQLiteBusyTimeoutFollowsDeadline: on SQLite a call whose deadline
// is nearer than the connection's busy timeout waits for a locked
// database only until the deadline, and the connection gets its own busy
// timeout back afterwards (the 7 s set on it, not the DSN's 10 s of a
// new connection).
func TestSQLiteBusyTimeoutFollowsDeadline(t *testing.T) {
	path := testenv.SQLitePath(t)
	db, err := sql.Open(sqlitedrv.DriverName, testenv.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one connection, whose settings the test reads
	ctx := ctxT(t)
	if err := migrations.Apply(ctx, db, migrations.SQLite, ""); err != nil {
		t.Fatal(err)
	}
	s := newStrategy(t, db, sqllease.Options{})
	l, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	mustExecDB(t, db, "PRAGMA busy_timeout = 7000")

	other, err := sql.Open(sqlitedrv.DriverName, testenv.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	mustExec(t, lock, "BEGIN IMMEDIATE")
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	start := time.Now()
	_, err = s.Renew(short, l, time.Hour)
	took := time.Since(start)
	cancel()
	wantRetry(t)("Renew on a locked database", err)
	if took > 5*time.Second {
		t.Errorf("Renew with a 500ms deadline on a locked database took %v; want it to give up near the deadline, not after the 7s busy timeout", took)
	}
	mustExec(t, lock, "ROLLBACK")

	var busy int64
	if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if busy != 7000 {
		t.Errorf("busy_timeout after the call: %d; want the connection's 7000 back", busy)
	}
}
