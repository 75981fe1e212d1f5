package faultsuite

import (
	"context"
	"testing"
	"time"

	"github.com/once-go/once/internal/faultproxy"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/migrations"
)

// coordinators is the suite's table: every fault test runs once per entry
// (skipping the cases an entry cannot have, such as network faults on
// SQLite). Adding a coordinator is one entry here plus its
// setup and connect functions.
var coordinators = []coordinator{
	sqlCoordinator("postgres", migrations.Postgres),
	sqlCoordinator("mariadb", migrations.MySQL),
	sqlCoordinator("sqlite", migrations.SQLite),
	redisCoordinator("redis7-key", testenv.Redis7, redislease.ModeKey),
	redisCoordinator("redis8-hash", testenv.Redis8, redislease.ModeHash),
	redisCoordinator("redis8-key", testenv.Redis8, redislease.ModeKey),
	redisCoordinator("valkey9-hash", testenv.Valkey9, redislease.ModeHash),
	redisCoordinator("valkey9-key", testenv.Valkey9, redislease.ModeKey),
}

// coordinator is one row of the table.
type coordinator struct {
	// name names the subtests and is the holder process's -coord flag.
	name string
	// network: the coordinator is a server reached over TCP, so the proxy
	// cases (partition, black hole, lost replies, restart) apply.
	network bool
	// prevExpiry: the strategy reports the previous holder's expiry
	// (Lease.PrevExpiry), which the manager's hand-off guard uses. Without
	// it the hand-off is guarded by the safety margin alone (see
	// handoff_test.go).
	prevExpiry bool
	// freeLag is how long after a lease's expiry (space.expiry) the
	// coordinator may take to free its machine ID. 0: at once (SQL
	// compares the expiry column, Redis expires the key or field). etcd
	// deletes the keys of an expired lease on its lessor's next revoke
	// tick, 0..500ms later (etcdRevokeTick). The process cases add it to
	// their liveness tolerances (how soon a dead holder's ID is free
	// again); no safety check uses it.
	freeLag time.Duration
	// expirySlack widens TestKillHolder's upper bound on how far the
	// coordinator's expiry lies past the holder's deadline plus the
	// margin (the latency of the holder's last renewal), beyond the 500ms
	// every coordinator gets. It only bounds how much longer than
	// requested the lease is; the lower bound (the safety property) does
	// not move.
	expirySlack time.Duration
	// setup prepares a fresh, empty namespace and removes it when t ends.
	// private asks for a coordinator the test owns alone, so that it may
	// restart or wipe the whole server (Redis: a private server process);
	// coordinators that can do both on a namespace of a shared server
	// (SQL: our own table) ignore it. It skips or fails t (per
	// ONCE_TEST_REQUIRE) when the service is missing.
	setup func(t *testing.T, private bool) *space
	// connect opens a client of the coordinator at target (space.target,
	// or space.via(proxy address)) with at most pool connections. It needs
	// no *testing.T: holder processes call it too.
	connect func(target, ns string, pool int) (*client, error)
}

// client is an open connection pool to a coordinator and the strategies
// on it.
type client struct {
	// strategy returns a strategy on the client's namespace. lowestFirst
	// makes it take the lowest free ID (deterministic tests); otherwise it
	// spreads contenders as in production.
	strategy func(lowestFirst bool) (lease.Strategy, error)
	close    func() error
}

// space is a namespace (table, hash or key prefix) on a coordinator.
type space struct {
	ns     string // table name / Redis NAME
	target string // what connect takes to reach the coordinator directly
	// via returns the target that reaches the coordinator through a proxy
	// listening on addr; nil for coordinators without a network.
	via func(addr string) string
	// oneTrip, if set, is via for a client whose every lease statement is
	// one round trip: the lost-reply case needs the reply of the round
	// trip that applies the write (go-sql-driver/mysql prepares each
	// statement first, unless interpolateParams=true). Nil: via is.
	oneTrip func(addr string) string
	// upstream is the server's host:port (what a proxy forwards to).
	upstream string
	// expiry returns when machine ID id expires at the coordinator (its
	// clock; the servers run on this machine, so it is ours), and false
	// when the ID is free.
	expiry func(ctx context.Context, id int) (time.Time, bool, error)
	// held counts the machine IDs held now.
	held func(ctx context.Context) (int, error)
	// fill makes other holders hold every machine ID but keep for at
	// least d, written straight into the coordinator (one statement or
	// pipeline; acquiring 511 leases one by one takes seconds). Nil: the
	// suite acquires them through the strategy (see occupy).
	fill func(ctx context.Context, keep int, d time.Duration) error
	// wipe loses every lease at once (FLUSHALL; SQL: DELETE and refill).
	wipe func(ctx context.Context) error
	// restart restarts the coordinator as far as this namespace's clients
	// can tell, p being the proxy they go through (nil if none): Redis
	// restarts its private server (SHUTDOWN NOSAVE, start again: the data
	// is lost); SQL kills our sessions server-side (the data survives).
	// Nil when not applicable.
	restart func(ctx context.Context, p *faultproxy.Proxy) error
	// restartLoses: a restart loses every lease (no persistence).
	restartLoses bool
}

// forEach runs fn for every coordinator, sequentially: most fault cases
// are timing-sensitive and must not share the two CPUs with each other.
// want filters the table (nil: all).
func forEach(t *testing.T, want func(coordinator) bool, fn func(t *testing.T, c coordinator)) {
	t.Helper()
	for _, c := range coordinators {
		if want != nil && !want(c) {
			continue
		}
		t.Run(c.name, func(t *testing.T) { fn(t, c) })
	}
}

// forEachParallel is forEach with the coordinators' subtests run in
// parallel, for cases whose assertions do not depend on timing (safety
// checks, generous liveness timeouts) and that mostly wait: processes
// starting, leases expiring.
func forEachParallel(t *testing.T, want func(coordinator) bool, fn func(t *testing.T, c coordinator)) {
	t.Helper()
	for _, c := range coordinators {
		if want != nil && !want(c) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fn(t, c)
		})
	}
}

// networked selects coordinators reached over TCP.
func networked(c coordinator) bool { return c.network }

// open connects to sp (through proxy p when p is not nil) and closes the
// client when t ends.
func (c coordinator) open(t *testing.T, sp *space, p *faultproxy.Proxy, pool int) *client {
	t.Helper()
	target := sp.target
	if p != nil {
		target = sp.via(p.Addr())
	}
	cl, err := c.connect(target, sp.ns, pool)
	if err != nil {
		t.Fatalf("%s: connect: %v", c.name, err)
	}
	t.Cleanup(func() { cl.close() })
	return cl
}

// strategy returns a strategy of cl or fails t.
func (cl *client) mustStrategy(t *testing.T, lowestFirst bool) lease.Strategy {
	t.Helper()
	s, err := cl.strategy(lowestFirst)
	if err != nil {
		t.Fatalf("strategy: %v", err)
	}
	return s
}

// proxy starts a fault proxy in front of sp's server, closed when t ends.
func proxy(t *testing.T, sp *space) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(sp.upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
