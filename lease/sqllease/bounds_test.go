package sqllease_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestOptionLimits: the ends of the ranges Options accepts.
func TestOptionLimits(t *testing.T) {
	fake, _ := sql.Open("sqllease-fake", "")
	defer fake.Close()
	for _, opts := range []sqllease.Options{
		{Dialect: migrations.SQLite, Candidates: 1},
		{Dialect: migrations.SQLite, Candidates: 512},
		{Dialect: migrations.SQLite, Sharing: sqllease.SharedByName},
		{Dialect: migrations.SQLite, Sharing: sqllease.GoOnly},
	} {
		if _, err := sqllease.New(fake, opts); err != nil {
			t.Errorf("New(%+v): %v", opts, err)
		}
	}
	for _, opts := range []sqllease.Options{
		{Dialect: migrations.SQLite, Sharing: -1},
		{Dialect: migrations.SQLite, Sharing: sqllease.GoOnly + 1},
	} {
		if _, err := sqllease.New(fake, opts); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("New(%+v): %v; want ErrConfig", opts, err)
		}
	}
}

// TestLimitsInMessages: the longest lease duration is granted whole, and
// the errors for a machine ID outside 0..511 name that range.
func TestLimitsInMessages(t *testing.T) {
	d := migrations.SQLite
	db := openDB(t, d)
	s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: newTable(t, db, d)})
	ctx := ctxT(t)
	const longest = 10 * 366 * 24 * time.Hour
	l, err := s.Acquire(ctx, longest)
	if err != nil {
		t.Fatalf("Acquire(%v): %v", longest, err)
	}
	if l.TTL != longest {
		t.Errorf("Acquire(%v): TTL %v", longest, l.TTL)
	}
	if _, err := s.Claim(ctx, 512, time.Hour); !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "outside 0..511") {
		t.Errorf("Claim(512) = %v; want ErrConfig naming 0..511", err)
	}
	if _, err := s.Renew(ctx, driver.Lease{MachineID: 512, Token: l.Token}, time.Hour); !errors.Is(err, driver.ErrLost) || !strings.Contains(err.Error(), "outside 0..511") {
		t.Errorf("Renew of machine ID 512 = %v; want ErrLost naming 0..511", err)
	}
}
