package sqllease_test

import (
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// zoned opens a second pool on the test server whose sessions run in a
// time zone far from UTC, and checks that they do.
func zoned(t *testing.T, d migrations.Dialect, east bool) *sql.DB {
	t.Helper()
	var driver, dsn, check, want string
	switch d {
	case migrations.Postgres:
		zone := "Etc/GMT+12" // UTC-12 (POSIX sign)
		if east {
			zone = "Pacific/Kiritimati" // UTC+14
		}
		driver, dsn = "pgx", withParam(testenv.PostgresDSN(), "timezone", zone)
		check, want = "SELECT current_setting('TimeZone')", zone
	case migrations.MySQL:
		zone := "'-12:00'"
		if east {
			zone = "'+13:00'" // MariaDB's limit (MySQL 8 allows +14:00)
		}
		// time_zone is the session variable; loc makes the driver decode
		// DATETIME in a far zone too (the strategy reads time as text).
		driver, dsn = "mysql", withParam(withParam(testenv.MySQLDSN(), "time_zone", zone), "loc", "Pacific/Kiritimati")
		check, want = "SELECT @@session.time_zone", strings.Trim(zone, "'")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(4)
	var got string
	if err := db.QueryRowContext(ctxT(t), check).Scan(&got); err != nil || got != want {
		t.Fatalf("session time zone %q, %v; want %q", got, err, want)
	}
	return db
}

func withParam(dsn, k, v string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + k + "=" + url.QueryEscape(v)
}

// TestTimeZoneImmunity: a holder whose session runs at UTC+14 (MariaDB: +13) writes
// expires_at in UTC, and a contender at UTC-12 sees the row as held until,
// and free after, that UTC time. (SQLite has no session time zone: 'now'
// is UTC by definition and the strategy never uses 'localtime'.)
func TestTimeZoneImmunity(t *testing.T) {
	for _, d := range []migrations.Dialect{migrations.Postgres, migrations.MySQL} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			plain := openDB(t, d)
			table := newTable(t, plain, d)
			ctx := ctxT(t)
			east := newStrategy(t, zoned(t, d, true), sqllease.Options{Dialect: d, Table: table, LowestFirst: true})
			west := newStrategy(t, zoned(t, d, false), sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1})
			observer := newStrategy(t, plain, sqllease.Options{Dialect: d, Table: table})

			l, err := east.Acquire(ctx, time.Second)
			if err != nil || l.MachineID != 0 {
				t.Fatalf("Acquire at UTC+14: %d, %v", l.MachineID, err)
			}
			if !near(l.CoordinatorNow, time.Now()) || l.CoordinatorNow.Location() != time.UTC {
				t.Errorf("CoordinatorNow %v at UTC+14; now is %v UTC", l.CoordinatorNow, time.Now().UTC())
			}
			r := rowOf(t, ctx, observer, 0)
			if !near(r.ExpiresAt, time.Now().Add(time.Second)) {
				t.Fatalf("expires_at written at UTC+14 is %v; want about %v UTC", r.ExpiresAt, time.Now().Add(time.Second).UTC())
			}
			if w, err := west.Acquire(ctx, time.Hour); err != nil || w.MachineID == 0 {
				t.Fatalf("Acquire at UTC-12 while 0 is held: %d, %v; want another ID", w.MachineID, err)
			} else if err := west.Release(ctx, w); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Until(r.ExpiresAt.Add(100 * time.Millisecond)))
			w, err := west.Acquire(ctx, time.Hour)
			if err != nil || w.MachineID != 0 {
				t.Fatalf("Acquire at UTC-12 after 0 expired: %d, %v; want 0", w.MachineID, err)
			}
			if !w.PrevExpiry.Equal(r.ExpiresAt) {
				t.Errorf("PrevExpiry %v; want %v", w.PrevExpiry, r.ExpiresAt)
			}
			if r := rowOf(t, ctx, observer, 0); !near(r.ExpiresAt, time.Now().Add(time.Hour)) {
				t.Errorf("expires_at written at UTC-12 is %v; want about %v UTC", r.ExpiresAt, time.Now().Add(time.Hour).UTC())
			}
		})
	}
}
