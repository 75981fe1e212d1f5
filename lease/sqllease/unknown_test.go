package sqllease_test

import (
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// lossyTable returns a strategy (LowestFirst, one candidate) on a fresh
// table reached through a lossy pool, a plain strategy on the same table
// for looking at rows, and the lossy connector.
func lossyTable(t *testing.T, d migrations.Dialect) (*sqllease.Strategy, *sqllease.Strategy, *lossy) {
	t.Helper()
	db, l := openLossy(t, d, t.TempDir()+"/lossy.db")
	table := newTable(t, db, d)
	s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1})
	return s, newStrategy(t, db, sqllease.Options{Dialect: d, Table: table}), l
}

// settled waits a moment, so that anything a call left running has run.
func settled() { time.Sleep(time.Second) }

// TestAcquireUnknownOutcome: a claim that reached the server but whose
// reply was lost is ErrRetry, and Acquire returns the lease it may have
// claimed (the machine ID and the token it wrote) for the caller to
// release; it starts nothing of its own, so the row stays held by that
// token until the caller releases it.
func TestAcquireUnknownOutcome(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, _ *sql.DB) {
		s, look, l := lossyTable(t, d)
		ctx := ctxT(t)
		if err := s.Check(ctx); err != nil { // its write probe is an UPDATE too
			t.Fatal(err)
		}
		l.arm("UPDATE")
		got, err := s.Acquire(ctx, time.Hour)
		if !errors.Is(err, driver.ErrRetry) {
			t.Fatalf("Acquire with the claim's reply lost: %v; want ErrRetry", err)
		}
		if got.MachineID != 0 || len(got.Token) != 32 {
			t.Fatalf("Acquire returned %+v beside %v; want machine ID 0 and the token it wrote", got, err)
		}
		settled()
		if r := rowOf(t, ctx, look, 0); !r.Held || hex.EncodeToString(r.Token) != got.Token {
			t.Fatalf("row 0 a second after the lost reply: held %v, token %x; want held by %s (nothing released it behind the caller's back)",
				r.Held, r.Token, got.Token)
		}
		if err := s.Release(ctx, got); err != nil {
			t.Fatal(err)
		}
		waitFree(t, look, 0)
	})
}

// TestReclaimUnknownOutcome: a reclaim whose write reached the server but
// whose reply was lost is ErrRetry beside the lease with the new token it
// wrote, which the caller can release; the old token is then gone.
func TestReclaimUnknownOutcome(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, _ *sql.DB) {
		s, look, l := lossyTable(t, d)
		ctx := ctxT(t)
		old, err := s.Acquire(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		l.arm("UPDATE")
		if d == migrations.Postgres {
			l.arm("WITH") // the one-statement reclaim
		}
		got, err := s.Reclaim(ctx, driver.Lease{MachineID: old.MachineID, Token: old.Token}, time.Hour)
		if !errors.Is(err, driver.ErrRetry) {
			t.Fatalf("Reclaim with the reply lost: %v; want ErrRetry", err)
		}
		if got.MachineID != old.MachineID || len(got.Token) != 32 || got.Token == old.Token {
			t.Fatalf("Reclaim returned %+v beside %v; want machine ID %d with a new token", got, err, old.MachineID)
		}
		settled()
		if r := rowOf(t, ctx, look, old.MachineID); !r.Held || hex.EncodeToString(r.Token) != got.Token {
			t.Fatalf("row after the lost reply: held %v, token %x; want held by the new token %s", r.Held, r.Token, got.Token)
		}
		if _, err := s.Renew(ctx, old, time.Hour); !errors.Is(err, driver.ErrLost) {
			t.Errorf("Renew with the replaced token: %v; want ErrLost", err)
		}
		if err := s.Release(ctx, got); err != nil {
			t.Fatal(err)
		}
		waitFree(t, look, old.MachineID)
	})
}

// waitFree waits (up to 5 s: SQLite frees a released row from the next
// millisecond) for row id to be free.
func waitFree(t *testing.T, s *sqllease.Strategy, id int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); rowOf(t, t.Context(), s, id).Held; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("row %d still held after its release", id)
		}
	}
}

// TestCommitUnknownOutcome: in a MySQL session with autocommit off, a
// claim's COMMIT whose reply was lost is an unknown outcome: ErrRetry,
// with the lease it may have committed beside it, and the row is indeed
// held by that token until the caller releases it.
func TestCommitUnknownOutcome(t *testing.T) {
	d := migrations.MySQL
	db, l := openLossyDSN(t, d, "", withParam(testenv.MySQLDSN(), "autocommit", "0"))
	plain := openDB(t, d)
	table := newTable(t, plain, d)
	s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1})
	look := newStrategy(t, plain, sqllease.Options{Dialect: d, Table: table})
	ctx := ctxT(t)
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	l.armCommit("UPDATE")
	got, err := s.Acquire(ctx, time.Hour)
	if !errors.Is(err, driver.ErrRetry) || !strings.Contains(err.Error(), "commit") {
		t.Fatalf("Acquire with the COMMIT's reply lost: %v; want ErrRetry naming the commit", err)
	}
	if got.MachineID != 0 || len(got.Token) != 32 {
		t.Fatalf("Acquire returned %+v beside %v; want machine ID 0 and the token it wrote", got, err)
	}
	if r := rowOf(t, ctx, look, 0); !r.Held || hex.EncodeToString(r.Token) != got.Token {
		t.Fatalf("row 0 after the lost COMMIT reply: held %v, token %x; want held by %s", r.Held, r.Token, got.Token)
	}
	if err := s.Release(ctx, got); err != nil {
		t.Fatal(err)
	}
	waitFree(t, look, 0)
}
