package sqllease_test

import (
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestClaimRereadsRowChangedSinceItsRead: a claim whose candidate row was
// claimed and released by another process between its read and its
// write does not go through on what it read. The release left the row
// free (expires_at in the past), so only lock_version tells that it
// changed; a claim on the old read would report the old, earlier
// PrevExpiry, and the hand-off guard would wait for the wrong expiry.
// PostgreSQL: another transaction holds the row locked while the claim's
// UPDATE waits on it, and changes it before it lets go.
func TestClaimRereadsRowChangedSinceItsRead(t *testing.T) {
	db := openDB(t, migrations.Postgres)
	table := newTable(t, db, migrations.Postgres)
	s := newStrategy(t, db, sqllease.Options{Table: table, LowestFirst: true, MachineIDs: &driver.IDRange{Min: 0, Max: 0}})
	ctx := ctxT(t)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT id FROM `+table+` WHERE id = 0 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		l   driver.Lease
		err error
	}
	claimed := make(chan result, 1)
	go func() {
		l, err := acquire(ctx, s, time.Hour)
		claimed <- result{l, err}
	}()
	// Until the claim's UPDATE waits for the row lock.
	for deadline := time.Now().Add(20 * time.Second); ; {
		var waiting int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE NOT l.granted AND a.query LIKE '%UPDATE%`+table+`%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim never waited for the locked row")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Another process's claim and release of the row, in one step.
	var released time.Time
	if err := tx.QueryRowContext(ctx, `UPDATE `+table+` SET token = decode(repeat('ab', 16), 'hex'), expires_at = now(),
		lock_version = lock_version + 2 WHERE id = 0 RETURNING expires_at`).Scan(&released); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-claimed:
	case <-time.After(30 * time.Second):
		t.Fatal("the claim did not return within 30s of the row's release")
	}
	if r.err != nil {
		t.Fatalf("Acquire: %v", r.err)
	}
	if r.l.PrevExpiry.Before(released) {
		t.Errorf("claim reports PrevExpiry %v, before the release at %v of the holder that claimed the row after its read", r.l.PrevExpiry, released)
	}
}
