package guard_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/tests/guardsuite"
)

// coordinators are the coordinators of this module the guard is tested
// on; the etcdlease module runs the same tests on etcd.
var coordinators = []guardsuite.Coordinator{
	{Name: "postgres", Setup: sqlCoordinator(migrations.Postgres)},
	{Name: "mysql", Setup: sqlCoordinator(migrations.MySQL)},
	{Name: "sqlite", Setup: sqlCoordinator(migrations.SQLite)},
	{Name: "redis7/key", Setup: redisCoordinator(testenv.Redis7, redislease.ModeKey)},
	{Name: "redis8/key", Setup: redisCoordinator(testenv.Redis8, redislease.ModeKey)},
	{Name: "redis8/hash", Setup: redisCoordinator(testenv.Redis8, redislease.ModeHash)},
}

func sqlCoordinator(d migrations.Dialect) func(t *testing.T) (func() guardlease.Coordinator, string) {
	return func(t *testing.T) (func() guardlease.Coordinator, string) {
		var db *sql.DB
		switch d {
		case migrations.Postgres:
			db = testenv.Postgres(t)
		case migrations.MySQL:
			db = testenv.MySQL(t)
		default:
			db = testenv.SQLite(t)
		}
		table := testenv.Unique(t, "guard")
		if err := migrations.Apply(t.Context(), db, d, table); err != nil {
			t.Fatalf("migrations.Apply: %v", err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := migrations.Down(ctx, db, d, table); err != nil {
				t.Errorf("migrations.Down: %v", err)
			}
		})
		return func() guardlease.Coordinator {
			s, err := sqllease.New(db, sqllease.Options{Dialect: d, Table: table})
			if err != nil {
				t.Fatalf("sqllease.New: %v", err)
			}
			return s
		}, d.String() + " table " + table
	}
}

func redisCoordinator(srv testenv.Server, mode redislease.Mode) func(t *testing.T) (func() guardlease.Coordinator, string) {
	return func(t *testing.T) (func() guardlease.Coordinator, string) {
		c := redis.NewClient(&redis.Options{Addr: testenv.Redis(t, srv), ContextTimeoutEnabled: true})
		t.Cleanup(func() { c.Close() })
		name := testenv.Unique(t, "guard")
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			keys := []string{name}
			for id := range redislease.Capacity {
				keys = append(keys, "{"+name+"}:"+strconv.Itoa(id))
			}
			c.Del(ctx, keys...)
		})
		return func() guardlease.Coordinator {
			// A release hold shorter than the holder's renewal period: a
			// renewal within the hold revives a released lease, so the
			// theft in TestSameOrdinal needs a gap between renewals.
			s, err := redislease.New(c, redislease.Options{Mode: mode, Name: name, ReleaseHold: 200 * time.Millisecond})
			if err != nil {
				t.Fatalf("redislease.New: %v", err)
			}
			return s
		}, srv.String() + " " + mode.String() + " mode " + name
	}
}
