package guardlease_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// coordinator is one coordinator the guard is tested on. setup prepares
// a fresh namespace (removed when the test ends) and returns a
// constructor of independent strategies on it, as separate processes
// would hold, and the description the guard's errors name it by.
type coordinator struct {
	name  string
	setup func(t *testing.T) (newCoord func() guardlease.Coordinator, where string)
}

var coordinators = []coordinator{
	{"postgres", sqlCoordinator(migrations.Postgres)},
	{"mysql", sqlCoordinator(migrations.MySQL)},
	{"sqlite", sqlCoordinator(migrations.SQLite)},
	{"redis7/key", redisCoordinator(testenv.Redis7, redislease.ModeKey)},
	{"redis8/key", redisCoordinator(testenv.Redis8, redislease.ModeKey)},
	{"redis8/hash", redisCoordinator(testenv.Redis8, redislease.ModeHash)},
	{"etcd", etcdCoordinator},
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

func etcdCoordinator(t *testing.T) (func() guardlease.Coordinator, string) {
	eps := testenv.Etcd(t)
	c, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	prefix := testenv.Unique(t, "guard") + "/"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if r, err := c.Get(ctx, prefix, clientv3.WithPrefix()); err == nil {
			for _, kv := range r.Kvs {
				if kv.Lease != 0 {
					c.Revoke(ctx, clientv3.LeaseID(kv.Lease))
				}
			}
		}
		c.Delete(ctx, prefix, clientv3.WithPrefix())
	})
	return func() guardlease.Coordinator {
		s, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix})
		if err != nil {
			t.Fatalf("etcdlease.New: %v", err)
		}
		return s
	}, "etcd prefix " + prefix
}

// ordinal sets a fresh environment variable to a StatefulSet pod name
// with ordinal 7 and returns its name. (t.Setenv cannot be used in
// parallel tests; each test has its own variable.)
func ordinal(t *testing.T) string {
	var b [4]byte
	rand.Read(b[:])
	name := "ONCE_GUARD_TEST_" + hex.EncodeToString(b[:])
	os.Setenv(name, "web-7")
	t.Cleanup(func() { os.Unsetenv(name) })
	return name
}

// spy is a coordinator that records the last lease it granted or renewed
// and when that request was sent, and that can crash: Release then does
// nothing, as when the holder was killed.
type spy struct {
	guardlease.Coordinator
	mu      sync.Mutex
	last    lease.Lease
	sent    time.Time
	crashed bool
}

func (s *spy) record(l lease.Lease, sent time.Time, err error) (lease.Lease, error) {
	if err == nil {
		s.mu.Lock()
		s.last, s.sent = l, sent
		s.mu.Unlock()
	}
	return l, err
}

func (s *spy) Claim(ctx context.Context, id int, d time.Duration) (lease.Lease, error) {
	sent := time.Now()
	l, err := s.Coordinator.Claim(ctx, id, d)
	return s.record(l, sent, err)
}

func (s *spy) Renew(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
	sent := time.Now()
	nl, err := s.Coordinator.Renew(ctx, l, d)
	return s.record(nl, sent, err)
}

func (s *spy) Release(ctx context.Context, l lease.Lease) error {
	s.mu.Lock()
	crashed := s.crashed
	s.mu.Unlock()
	if crashed {
		return nil
	}
	return s.Coordinator.Release(ctx, l)
}

// lease returns the last lease granted or renewed and when it was asked for.
func (s *spy) lease() (lease.Lease, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.sent
}

func (s *spy) crash() {
	s.mu.Lock()
	s.crashed = true
	s.mu.Unlock()
}
