package sqllease_test

import (
	"database/sql"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// near reports whether a and b are within 5 s (database clock vs ours; the
// servers run on this host).
func near(a, b time.Time) bool { return a.Sub(b).Abs() < 5*time.Second }

func TestFirstAcquire(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		asked := 90*time.Second + time.Nanosecond // rounded up to whole microseconds
		l, err := s.Acquire(ctx, asked)
		if err != nil {
			t.Fatal(err)
		}
		if l.MachineID < 0 || l.MachineID > 511 {
			t.Fatalf("machine ID %d", l.MachineID)
		}
		if l.TTL != 90*time.Second+time.Microsecond {
			t.Errorf("TTL %v; want %v", l.TTL, 90*time.Second+time.Microsecond)
		}
		if epoch := time.Unix(0, 0).UTC(); !l.PrevExpiry.Equal(epoch) {
			t.Errorf("PrevExpiry %v for a row never held; want its expires_at, %v", l.PrevExpiry, epoch)
		}
		if l.CoordinatorNow.Location() != time.UTC || !near(l.CoordinatorNow, time.Now()) {
			t.Errorf("CoordinatorNow %v; want about %v UTC", l.CoordinatorNow, time.Now().UTC())
		}
		token, err := hex.DecodeString(l.Token)
		if err != nil || len(token) != 16 {
			t.Fatalf("Token %q is not 16 hex-encoded bytes", l.Token)
		}
		r := rowOf(t, ctx, s, l.MachineID)
		if !r.Held || hex.EncodeToString(r.Token) != l.Token || r.LockVersion != 1 {
			t.Errorf("row %+v after Acquire", r)
		}
		if exp := l.CoordinatorNow.Add(l.TTL); r.ExpiresAt.Before(exp) || r.ExpiresAt.After(exp.Add(time.Second)) ||
			d != migrations.MySQL && !r.ExpiresAt.Equal(exp) {
			t.Errorf("expires_at %v; CoordinatorNow + TTL = %v", r.ExpiresAt, exp)
		}
		if r.ExpiresAt.Location() != time.UTC {
			t.Errorf("expires_at in %v", r.ExpiresAt.Location())
		}
		held := 0
		rows, _ := s.Rows(ctx)
		for _, r := range rows {
			if r.Held {
				held++
			}
		}
		if held != 1 {
			t.Errorf("%d rows held after one Acquire", held)
		}
	})
}

// TestExhaustion: 512 acquisitions fill the table with distinct IDs, the
// 513th is ErrExhausted, and a released ID is the one handed out next, with
// the release time as PrevExpiry.
func TestExhaustion(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		leases := make(map[int]driver.Lease)
		for i := range 512 {
			l, err := acquire(ctx, s, time.Hour)
			if err != nil {
				t.Fatalf("Acquire #%d: %v", i+1, err)
			}
			if _, dup := leases[l.MachineID]; dup {
				t.Fatalf("machine ID %d handed out twice", l.MachineID)
			}
			leases[l.MachineID] = l
		}
		if _, err := s.Acquire(ctx, time.Hour); !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Acquire #513: %v; want ErrExhausted", err)
		}
		if err := s.Release(ctx, leases[300]); err != nil {
			t.Fatal(err)
		}
		released := rowOf(t, ctx, s, 300)
		l, err := s.Acquire(ctx, time.Hour)
		if err != nil || l.MachineID != 300 {
			t.Fatalf("Acquire after releasing 300: %d, %v", l.MachineID, err)
		}
		if !l.PrevExpiry.Equal(released.ExpiresAt) {
			t.Errorf("PrevExpiry %v; the released row's expires_at was %v", l.PrevExpiry, released.ExpiresAt)
		}
		if _, err := s.Acquire(ctx, time.Hour); !errors.Is(err, driver.ErrExhausted) {
			t.Fatalf("Acquire in a full table: %v; want ErrExhausted", err)
		}
	})
}

// TestRenewRelease: renew moves expires_at to the database's now + d,
// replaying a renewal succeeds, every write bumps lock_version, release
// frees the row, and a replayed release is harmless.
func TestRenewRelease(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		first := rowOf(t, ctx, s, l.MachineID)
		for i, dur := range []time.Duration{time.Hour, time.Hour, 2 * time.Hour} {
			nl, err := s.Renew(ctx, l, dur) // always the original lease: replays must work
			if err != nil {
				t.Fatalf("Renew #%d: %v", i+1, err)
			}
			if nl.MachineID != l.MachineID || nl.Token != l.Token || nl.TTL != dur || !nl.PrevExpiry.IsZero() {
				t.Errorf("Renew #%d = %+v", i+1, nl)
			}
			r := rowOf(t, ctx, s, l.MachineID)
			if r.LockVersion != first.LockVersion+int64(i)+1 || !near(r.ExpiresAt, time.Now().Add(dur)) {
				t.Errorf("row after Renew #%d: %+v", i+1, r)
			}
			if d != migrations.MySQL && !r.ExpiresAt.Equal(nl.CoordinatorNow.Add(dur)) {
				t.Errorf("expires_at %v; CoordinatorNow + d = %v", r.ExpiresAt, nl.CoordinatorNow.Add(dur))
			}
		}
		for i := range 2 {
			if err := s.Release(ctx, l); err != nil {
				t.Fatalf("Release #%d: %v", i+1, err)
			}
			r := rowOf(t, ctx, s, l.MachineID)
			if r.Held && d == migrations.SQLite && r.LockVersion == first.LockVersion+4+int64(i) {
				// Release sets expires_at to now, and a row is free once
				// expires_at < now: with SQLite's millisecond clock a read
				// in the same millisecond as the release still sees it
				// held (on a fast machine, most runs). It is free from
				// the next millisecond.
				time.Sleep(2 * time.Millisecond)
				r = rowOf(t, ctx, s, l.MachineID)
			}
			if r.Held || r.LockVersion != first.LockVersion+4+int64(i) || !near(r.ExpiresAt, time.Now()) {
				t.Errorf("row after Release #%d: %+v", i+1, r)
			}
		}
	})
}

// TestTakeover: after expiry another contender takes the ID; the old
// holder's renewal is lost and its release leaves the new holder's row
// exactly as it was.
func TestTakeover(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		table := newTable(t, db, d)
		a := newStrategy(t, db, sqllease.Options{Table: table, LowestFirst: true})
		b := newStrategy(t, db, sqllease.Options{Table: table, LowestFirst: true})
		ctx := ctxT(t)
		la, err := a.Acquire(ctx, 300*time.Millisecond)
		if err != nil || la.MachineID != 0 {
			t.Fatalf("Acquire: %d, %v", la.MachineID, err)
		}
		aRow := rowOf(t, ctx, a, 0)
		for rowOf(t, ctx, a, 0).Held {
			time.Sleep(50 * time.Millisecond)
		}
		lb, err := b.Acquire(ctx, time.Hour)
		if err != nil || lb.MachineID != 0 {
			t.Fatalf("takeover: %d, %v", lb.MachineID, err)
		}
		if !lb.PrevExpiry.Equal(aRow.ExpiresAt) || !lb.CoordinatorNow.After(lb.PrevExpiry) {
			t.Errorf("PrevExpiry %v (old expires_at %v), CoordinatorNow %v", lb.PrevExpiry, aRow.ExpiresAt, lb.CoordinatorNow)
		}
		before := rowOf(t, ctx, b, 0)
		if _, err := a.Renew(ctx, la, time.Hour); !errors.Is(err, driver.ErrLost) {
			t.Errorf("stale Renew: %v; want ErrLost", err)
		}
		if _, err := a.Reclaim(ctx, la, time.Hour); !errors.Is(err, driver.ErrLost) {
			t.Errorf("stale Reclaim: %v; want ErrLost", err)
		}
		if err := a.Release(ctx, la); err != nil {
			t.Errorf("stale Release: %v; want nil", err)
		}
		after := rowOf(t, ctx, b, 0)
		if after.ExpiresAt != before.ExpiresAt || after.LockVersion != before.LockVersion || !after.Held ||
			hex.EncodeToString(after.Token) != lb.Token {
			t.Errorf("new holder's row changed by the old holder: %+v -> %+v", before, after)
		}
		if _, err := b.Renew(ctx, lb, time.Hour); err != nil {
			t.Errorf("new holder's Renew: %v", err)
		}
	})
}

// TestReclaim: a restarted process takes its lease back from the machine
// ID and token alone, even after it expired, as long as no one took it.
func TestReclaim(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		saved := driver.Lease{MachineID: l.MachineID, Token: l.Token}
		nl, err := s.Reclaim(ctx, saved, time.Hour)
		if err != nil || nl.MachineID != l.MachineID || nl.TTL != time.Hour {
			t.Fatalf("Reclaim = %+v, %v", nl, err)
		}
		if !rowOf(t, ctx, s, l.MachineID).Held {
			t.Error("row not held after Reclaim")
		}
	})
}
