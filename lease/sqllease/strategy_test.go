package sqllease_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// fakeDriver is a database/sql driver the strategy cannot recognise.
type fakeDriver struct{}

func (fakeDriver) Open(string) (sqldriver.Conn, error) { return nil, errors.New("fake") }

func init() { sql.Register("sqllease-fake", fakeDriver{}) }

func TestNewOptions(t *testing.T) {
	fake, _ := sql.Open("sqllease-fake", "")
	defer fake.Close()
	for name, c := range map[string]struct {
		db   *sql.DB
		opts sqllease.Options
	}{
		"nil db":            {nil, sqllease.Options{Dialect: migrations.SQLite}},
		"bad table":         {fake, sqllease.Options{Dialect: migrations.SQLite, Table: "x; DROP TABLE y"}},
		"uppercase table":   {fake, sqllease.Options{Dialect: migrations.SQLite, Table: "Leases"}},
		"candidates < 0":    {fake, sqllease.Options{Dialect: migrations.SQLite, Candidates: -1}},
		"candidates > 512":  {fake, sqllease.Options{Dialect: migrations.SQLite, Candidates: 513}},
		"unknown dialect":   {fake, sqllease.Options{Dialect: 9}},
		"undetected driver": {fake, sqllease.Options{}},
	} {
		s, err := sqllease.New(c.db, c.opts)
		if !errors.Is(err, driver.ErrConfig) || s != nil {
			t.Errorf("%s: New = %v, %v; want driver.ErrConfig", name, s, err)
		} else if !strings.HasPrefix(err.Error(), "sqllease: ") {
			t.Errorf("%s: message %q lacks the package prefix", name, err)
		}
	}
	s, err := sqllease.New(fake, sqllease.Options{Dialect: migrations.MySQL})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "sql" || s.Deterministic() || s.Table() != "once_leases" || s.Dialect() != migrations.MySQL {
		t.Errorf("Name %q Deterministic %v Table %q Dialect %v", s.Name(), s.Deterministic(), s.Table(), s.Dialect())
	}
}

func TestDetectDialect(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		if got := newStrategy(t, db, sqllease.Options{}).Dialect(); got != d {
			t.Errorf("detected %v; want %v", got, d)
		}
	})
}

func TestBadDuration(t *testing.T) {
	db := openDB(t, migrations.SQLite)
	s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, migrations.SQLite)})
	ctx := ctxT(t)
	for _, d := range []time.Duration{0, -time.Second, 11 * 366 * 24 * time.Hour} {
		if _, err := s.Acquire(ctx, d); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Acquire(%v) = %v; want ErrConfig", d, err)
		}
	}
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Renew(ctx, l, 0); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("Renew(0) = %v; want ErrConfig", err)
	}
}

// TestForeignLease: a lease that this strategy cannot have issued is lost.
func TestForeignLease(t *testing.T) {
	db := openDB(t, migrations.SQLite)
	s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, migrations.SQLite)})
	ctx := ctxT(t)
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]driver.Lease{
		"id -1":        {MachineID: -1, Token: l.Token},
		"id 512":       {MachineID: 512, Token: l.Token},
		"short token":  {MachineID: l.MachineID, Token: l.Token[:30]},
		"not hex":      {MachineID: l.MachineID, Token: strings.Repeat("z", 32)},
		"other token":  {MachineID: l.MachineID, Token: strings.Repeat("0", 32)},
		"other holder": {MachineID: (l.MachineID + 1) % 512, Token: l.Token},
	} {
		if _, err := s.Renew(ctx, bad, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Errorf("%s: Renew = %v; want ErrLost", name, err)
		}
		if _, err := s.Reclaim(ctx, bad, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Errorf("%s: Reclaim = %v; want ErrLost", name, err)
		}
	}
	if _, err := s.Renew(ctx, l, time.Minute); err != nil {
		t.Errorf("the real lease: %v", err)
	}
}

// TestExample: the deterministic order used by examples starts at ID 0.
func TestLowestFirst(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d), LowestFirst: true, Candidates: 1})
		ctx := ctxT(t)
		for want := range 3 {
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil || l.MachineID != want {
				t.Fatalf("Acquire = %d, %v; want machine ID %d", l.MachineID, err, want)
			}
		}
	})
}

func rowOf(t *testing.T, ctx context.Context, s *sqllease.Strategy, id int) sqllease.Row {
	t.Helper()
	rows, err := s.Rows(ctx)
	if err != nil {
		t.Fatalf("Rows: %v", err)
	}
	if len(rows) != migrations.Rows || rows[id].ID != id {
		t.Fatalf("Rows: %d rows, row %d has ID %d", len(rows), id, rows[id].ID)
	}
	return rows[id]
}
