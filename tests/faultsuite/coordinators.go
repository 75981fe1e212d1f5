package faultsuite

import (
	"context"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/tests/faultproxy"
)

// coordinators is the suite's table, set by Main: every fault test runs
// once per entry (skipping the cases an entry cannot have, such as network
// faults on SQLite).
var coordinators []Coordinator

// Builtin returns the coordinators of the root module: SQL and Redis.
// Adding one is an entry here plus its setup and connect functions; a
// coordinator whose client lives in a module of its own (etcd) is built
// by that module's test and passed to Main.
func Builtin() []Coordinator {
	return []Coordinator{
		sqlCoordinator("postgres", migrations.Postgres),
		sqlCoordinator("mariadb", migrations.MySQL),
		sqlCoordinator("sqlite", migrations.SQLite),
		redisCoordinator("redis7-key", testenv.Redis7, redislease.ModeKey),
		redisCoordinator("redis8-hash", testenv.Redis8, redislease.ModeHash),
		redisCoordinator("redis8-key", testenv.Redis8, redislease.ModeKey),
		redisCoordinator("valkey9-hash", testenv.Valkey9, redislease.ModeHash),
		redisCoordinator("valkey9-key", testenv.Valkey9, redislease.ModeKey),
	}
}

// coordinator is one row of the table.
type Coordinator struct {
	// name names the subtests and is the holder process's -coord flag.
	Name string
	// network: the coordinator is a server reached over TCP, so the proxy
	// cases (partition, black hole, lost replies, restart) apply.
	Network bool
	// prevExpiry: the strategy reports the previous holder's expiry
	// (Lease.PrevExpiry), which the manager's hand-off guard uses. Without
	// it the hand-off is guarded by the safety margin alone (see
	// handoff.go).
	PrevExpiry bool
	// freeLag is how long after a lease's expiry (space.expiry) the
	// coordinator may take to free its machine ID. 0: at once (SQL
	// compares the expiry column, Redis expires the key or field). etcd
	// deletes the keys of an expired lease on its lessor's next revoke
	// tick, 0..500ms later (etcdRevokeTick). The process cases add it to
	// their liveness tolerances (how soon a dead holder's ID is free
	// again); no safety check uses it.
	FreeLag time.Duration
	// expirySlack widens TestKillHolder's upper bound on how far the
	// coordinator's expiry lies past the holder's deadline plus the
	// margin (the latency of the holder's last renewal), beyond the 500ms
	// every coordinator gets. It only bounds how much longer than
	// requested the lease is; the lower bound (the safety property) does
	// not move.
	ExpirySlack time.Duration
	// setup prepares a fresh, empty namespace and removes it when t ends.
	// private asks for a coordinator the test owns alone, so that it may
	// restart or wipe the whole server (Redis: a private server process);
	// coordinators that can do both on a namespace of a shared server
	// (SQL: our own table) ignore it. It skips or fails t (per
	// ONCE_TEST_REQUIRE) when the service is missing.
	Setup func(t *testing.T, private bool) *Space
	// connect opens a client of the coordinator at target (space.target,
	// or space.via(proxy address)) with at most pool connections. It needs
	// no *testing.T: holder processes call it too.
	Connect func(target, ns string, pool int) (*Client, error)
	// holdStrategy, for a coordinator whose strategy keeps a released ID
	// taken (Redis, etcd), makes a strategy on sp whose Release keeps the
	// ID taken for hold (0: the default hold; negative: none); nil for the
	// others.
	HoldStrategy func(t *testing.T, sp *Space, hold time.Duration) driver.Strategy
}

// client is an open connection pool to a coordinator and the strategies
// on it.
type Client struct {
	// strategy returns a strategy on the client's namespace. lowestFirst
	// makes it take the lowest free ID (deterministic tests); otherwise it
	// spreads contenders as in production.
	Strategy func(lowestFirst bool) (driver.Strategy, error)
	Close    func() error
}

// space is a namespace (table, hash or key prefix) on a coordinator.
type Space struct {
	NS     string // table name / Redis NAME
	Target string // what connect takes to reach the coordinator directly
	// via returns the target that reaches the coordinator through a proxy
	// listening on addr; nil for coordinators without a network.
	Via func(addr string) string
	// oneTrip, if set, is via for a client whose every lease statement is
	// one round trip: the lost-reply case needs the reply of the round
	// trip that applies the write (go-sql-driver/mysql prepares each
	// statement first, unless interpolateParams=true). Nil: via is.
	OneTrip func(addr string) string
	// upstream is the server's host:port (what a proxy forwards to).
	Upstream string
	// expiry returns when machine ID id expires at the coordinator (its
	// clock; the servers run on this machine, so it is ours), and false
	// when the ID is free.
	Expiry func(ctx context.Context, id int) (time.Time, bool, error)
	// held counts the machine IDs held now.
	Held func(ctx context.Context) (int, error)
	// fill makes other holders hold every machine ID but keep for at
	// least d, written straight into the coordinator (one statement or
	// pipeline; acquiring 511 leases one by one takes seconds). Nil: the
	// suite acquires them through the strategy (see occupy).
	Fill func(ctx context.Context, keep int, d time.Duration) error
	// wipe loses every lease at once (FLUSHALL; SQL: DELETE and refill).
	Wipe func(ctx context.Context) error
	// restart restarts the coordinator as far as this namespace's clients
	// can tell, p being the proxy they go through (nil if none): Redis
	// restarts its private server (SHUTDOWN NOSAVE, start again: the data
	// is lost); SQL kills our sessions server-side (the data survives).
	// Nil when not applicable.
	Restart func(ctx context.Context, p *faultproxy.Proxy) error
	// restartLoses: a restart loses every lease (no persistence).
	RestartLoses bool
}

// forEach runs fn for every coordinator, sequentially: most fault cases
// are timing-sensitive and must not share the two CPUs with each other.
// want filters the table (nil: all).
func forEach(t *testing.T, want func(Coordinator) bool, fn func(t *testing.T, c Coordinator)) {
	t.Helper()
	for _, c := range coordinators {
		if want != nil && !want(c) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) { fn(t, c) })
	}
}

// forEachParallel is forEach with the coordinators' subtests run in
// parallel, for cases whose assertions do not depend on timing (safety
// checks, generous liveness timeouts) and that mostly wait: processes
// starting, leases expiring.
func forEachParallel(t *testing.T, want func(Coordinator) bool, fn func(t *testing.T, c Coordinator)) {
	t.Helper()
	for _, c := range coordinators {
		if want != nil && !want(c) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, c)
		})
	}
}

// networked selects coordinators reached over TCP.
func networked(c Coordinator) bool { return c.Network }

// open connects to sp (through proxy p when p is not nil) and closes the
// client when t ends.
func (c Coordinator) open(t *testing.T, sp *Space, p *faultproxy.Proxy, pool int) *Client {
	t.Helper()
	target := sp.Target
	if p != nil {
		target = sp.Via(p.Addr())
	}
	cl, err := c.Connect(target, sp.NS, pool)
	if err != nil {
		t.Fatalf("%s: connect: %v", c.Name, err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// strategy returns a strategy of cl or fails t.
func (cl *Client) mustStrategy(t *testing.T, lowestFirst bool) driver.Strategy {
	t.Helper()
	s, err := cl.Strategy(lowestFirst)
	if err != nil {
		t.Fatalf("strategy: %v", err)
	}
	return s
}

// proxy starts a fault proxy in front of sp's server, closed when t ends.
func proxy(t *testing.T, sp *Space) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(sp.Upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
