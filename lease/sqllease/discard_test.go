package sqllease_test

import (
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestMySQLConnectionKeptUnlessFailed: on MySQL a call hands its
// connection back to the pool when its statements succeeded, and discards
// it when one failed (the server then rolls back whatever it left open).
func TestMySQLConnectionKeptUnlessFailed(t *testing.T) {
	d := migrations.MySQL
	db := openDB(t, d)
	table := newTable(t, db, d)
	q, _ := migrations.QuoteTable(d, table)
	db.SetMaxOpenConns(1) // the pool's one connection, whose ID the test reads
	ctx := ctxT(t)
	connID := func() int64 {
		t.Helper()
		var id int64
		if err := db.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
	if _, err := s.Acquire(ctx, time.Hour); err != nil { // checks the table first
		t.Fatal(err)
	}
	before := connID()
	l, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Renew(ctx, l, time.Hour); err != nil {
		t.Fatal(err)
	}
	if after := connID(); after != before {
		t.Errorf("connection %d replaced by %d after calls that succeeded", before, after)
	}

	// The table loses a column the claim writes: its statement fails.
	mustExecDB(t, db, "ALTER TABLE "+q+" DROP COLUMN holder")
	before = connID()
	if _, err := s.Acquire(ctx, time.Hour); !errors.Is(err, driver.ErrConfig) {
		t.Fatalf("Acquire after the holder column was dropped: %v; want ErrConfig", err)
	}
	if after := connID(); after == before {
		t.Errorf("connection %d kept after a failed statement", before)
	}
}
