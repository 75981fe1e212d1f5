package redislease_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/lease/redislease"
)

// TestCluster runs the strategy on a real Redis Cluster (three masters
// with a replica each, started by the test) through go-redis's
// ClusterClient: the leasetest conformance suite, 600 contenders racing
// for 512 IDs, and what a failover of the master serving NAME's slot does
// to held leases. Redis 7 runs key mode; Redis 8, when its binaries are
// installed, hash mode.
func TestCluster(t *testing.T) {
	for _, x := range []struct {
		bins func(*testing.T) clusterBinaries
		mode redislease.Mode
	}{
		{redis7Binaries, redislease.ModeKey},
		{redis8Binaries, redislease.ModeHash},
	} {
		bins := x.bins(t)
		t.Run(bins.name+"/"+x.mode.String(), func(t *testing.T) {
			t.Parallel()
			tc := startCluster(t, bins)
			t.Run("leasetest", func(t *testing.T) { leasetest.Run(t, clusterHarness(tc, x.mode)) })
			t.Run("contention", func(t *testing.T) { contend(t, tc, x.mode, clusterName(t, tc.client(t))) })
			// Each failover kills another master (three in all), and the
			// killed one rejoins as a replica.
			t.Run("failover/lag", func(t *testing.T) { testFailoverLag(t, tc, x.mode) })
			t.Run("failover/unreplicated", func(t *testing.T) { testFailoverUnreplicated(t, tc, x.mode, false) })
			t.Run("failover/unreplicated-wait", func(t *testing.T) { testFailoverUnreplicated(t, tc, x.mode, true) })
		})
	}
}

// clusterName returns a fresh NAME on c, deleted when the test ends.
func clusterName(t testing.TB, c *redis.ClusterClient) string {
	t.Helper()
	name := testenv.Unique(t, "once_leases")
	t.Cleanup(func() { cleanupCluster(c, name) })
	return name
}

func cleanupCluster(c *redis.ClusterClient, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Del(ctx, append([]string{name}, idKeys(name)...)...)
}

// clusterStrategy is a strategy on c whose claims and renewals wait for
// the replica's acknowledgement (each master has one).
func clusterStrategy(t testing.TB, c *redis.ClusterClient, mode redislease.Mode, name string) *redislease.Strategy {
	t.Helper()
	return strategyOpts(t, c, redislease.Options{Mode: mode, Name: name, WaitReplicas: 1})
}

// clusterHarness gives the conformance suite cluster strategies. Its
// short leases are 3s: six servers and the test share this machine's
// CPUs, and a renewal a second late would lose a 1s lease.
func clusterHarness(tc *testCluster, mode redislease.Mode) leasetest.Harness {
	return leasetest.Harness{
		ShortTTL: 3 * time.Second,
		New: func(t *testing.T) func() driver.Strategy {
			c := tc.client(t)
			name := clusterName(t, c)
			return func() driver.Strategy { return clusterStrategy(t, c, mode, name) }
		},
		Broken: func(t *testing.T) driver.Strategy {
			c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{testenv.DeadAddr(t)}, MaxRetries: -1})
			t.Cleanup(func() { c.Close() })
			return clusterStrategy(t, c, mode, "once_leases")
		},
	}
}

// contend races 600 contenders, each its own strategy (as processes would
// be, spread over four cluster clients with generous timeouts: 600 server
// checks and claims on a shared machine), for the 512 IDs of NAME:
// exactly 512 win, each ID once, and the server holds each winner's
// token. Contenders retry as the lease manager would (see race).
func contend(t *testing.T, tc *testCluster, mode redislease.Mode, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const contenders = 600
	var clients []*redis.ClusterClient
	for range 4 {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tc.addrs(), ContextTimeoutEnabled: true, PoolSize: 50,
			DialTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
		defer c.Close()
		clients = append(clients, c)
	}
	c := clients[0]
	strategies := make([]*redislease.Strategy, contenders)
	for i := range strategies {
		strategies[i] = clusterStrategy(t, clients[i%len(clients)], mode, name)
	}
	won, exhausted, r := race(t, ctx, strategies)
	epoch := c.ClusterInfo(ctx).Val()
	if i := strings.Index(epoch, "cluster_current_epoch:"); i >= 0 {
		epoch = strings.Fields(epoch[i:])[0]
	}
	t.Logf("%d winners (%d confirmed after an unknown outcome), %d exhausted; %s (6 after the cluster's creation, one more per failover)",
		len(won), r.unknown, exhausted, epoch)
	if len(won) != redislease.Capacity || exhausted != contenders-redislease.Capacity {
		t.Fatalf("%d winners, %d exhausted; want %d and %d", len(won), exhausted, redislease.Capacity, contenders-redislease.Capacity)
	}
	slots, err := clusterStrategy(t, c, mode, name).List(ctx)
	if err != nil || len(slots) != redislease.Capacity {
		t.Fatalf("List = %d slots, %v; want %d", len(slots), err, redislease.Capacity)
	}
	for _, s := range slots {
		if won[s.MachineID] != s.Token {
			t.Fatalf("ID %d holds %q, want its winner's token %q", s.MachineID, s.Token, won[s.MachineID])
		}
	}
}

// pickMaster returns a master of tc that still has its replica, and that
// replica.
func pickMaster(t *testing.T, ctx context.Context, tc *testCluster, c *redis.ClusterClient) (master, replica string) {
	t.Helper()
	slots, err := slotOwners(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		if s.master != "" && len(s.replicas) > 0 {
			return s.master, s.replicas[0]
		}
	}
	t.Fatalf("no master with a replica left: %+v", slots)
	return "", ""
}

// testFailoverLag measures a failover with the real replication lag: 50
// leases acquired one after the other without WAIT, the master killed
// (SIGKILL) the moment the last reply arrives, the replica promoted. It
// reports how many of the leases the new master still holds; every one
// that is missing is an ID in use that another process could acquire.
func testFailoverLag(t *testing.T, tc *testCluster, mode redislease.Mode) {
	ctx := ctxT(t)
	c := tc.client(t)
	master, replica := pickMaster(t, ctx, tc, c)
	name := tc.nameOn(t, ctx, c, master)
	s := strategyOpts(t, c, redislease.Options{Mode: mode, Name: name, AcceptReplicaLoss: true})
	var held []driver.Lease
	for range 50 {
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
	}
	tc.node(master).kill()
	took := tc.awaitPromoted(t, c, name, replica)
	defer tc.restart(t, master)
	slots, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[int]string{}
	for _, sl := range slots {
		kept[sl.MachineID] = sl.Token
	}
	lost := 0
	for _, l := range held {
		if kept[l.MachineID] != l.Token {
			lost++
		}
	}
	t.Logf("failover with the real replication lag: replica promoted %v after the kill; %d of %d leases lost "+
		"(the master killed as the last claim's reply arrived)", took.Round(time.Millisecond), lost, len(held))
}

// testFailoverUnreplicated kills the master of NAME's slot while its
// replica has missed the latest writes (its link cut and the replica
// stalled, so that nothing written meanwhile reaches it), and lets the
// replica take over. Before the cut a lease P is held; during it a lease
// L is acquired and P renewed.
//
// Without WaitReplicas both are trusted and both are gone after the
// failover: another process claims L's ID at once while L's holder still
// generates (two holders of one ID), and P is back at its old expiry.
// With WaitReplicas 1 neither is trusted: the claim comes back with
// ErrRetry (its lease beside it, for the manager to release) and the
// renewal with ErrRetry; after the failover P holds as its holder
// believes, and renews.
func testFailoverUnreplicated(t *testing.T, tc *testCluster, mode redislease.Mode, wait bool) {
	ctx := ctxT(t)
	c := tc.client(t)
	master, replica := pickMaster(t, ctx, tc, c)
	name := tc.nameOn(t, ctx, c, master)
	o := redislease.Options{Mode: mode, Name: name, LowestFirst: true, AcceptReplicaLoss: true}
	if wait {
		o.WaitReplicas, o.WaitTimeout, o.AcceptReplicaLoss = 1, 300*time.Millisecond, false
	}
	s := strategyOpts(t, c, o)
	p, err := acquireSoon(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if !wait {
		// Let the replica take P (it is up to date before the cut).
		r := redis.NewClient(&redis.Options{Addr: replica, MaxRetries: -1,
			OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
		defer r.Close()
		for stored(ctx, r, mode, name, p.MachineID) != p.Token {
			if ctx.Err() != nil {
				t.Fatal("P never reached the replica")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	tc.isolate(t, replica, master, 5*time.Second)
	cut := time.Now()
	l, errL := s.Acquire(ctx, time.Minute)
	_, errP := s.Renew(ctx, p, 10*time.Minute)
	if err := tc.stillCut(ctx, master); err != nil {
		t.Fatalf("%v %v after the cut, before the master was killed (a slow machine: the stalled replica woke up)", err, time.Since(cut))
	}
	tc.node(master).kill()
	took := tc.awaitPromoted(t, c, name, replica)
	restarted := false
	defer func() {
		if !restarted {
			tc.restart(t, master)
		}
	}()

	other := strategyOpts(t, c, redislease.Options{Mode: mode, Name: name, AcceptReplicaLoss: true})
	ttlP := storedTTL(ctx, c, mode, name, p.MachineID)
	if !wait {
		if errL != nil || errP != nil {
			t.Fatalf("during the cut, without WAIT: Acquire %v, Renew %v; want both trusted", errL, errP)
		}
		dup, err := claimSoon(ctx, other, l.MachineID)
		t.Logf("without WaitReplicas: replica promoted %v after the kill; the trusted claim of ID %d is gone (claimed again by another: %v), "+
			"the trusted renewal of P to 10m is gone (P has %v left)", took.Round(time.Millisecond), l.MachineID, err == nil, ttlP.Round(time.Second))
		if err != nil || dup.MachineID != l.MachineID {
			t.Fatalf("claim of ID %d after the failover = %v; want it free (lost with the master): the measurement changed, "+
				"update the package documentation", l.MachineID, err)
		}
		if ttlP > time.Minute {
			t.Fatalf("P has %v left after the failover; want the pre-cut minute (the renewal lost with the master)", ttlP)
		}
		return
	}
	if !errors.Is(errL, driver.ErrRetry) || l.Token == "" || !errors.Is(errP, driver.ErrRetry) {
		t.Fatalf("during the cut, with WaitReplicas 1: Acquire %v (lease %d %q), Renew %v; want both ErrRetry, the claim returned",
			errL, l.MachineID, l.Token, errP)
	}
	t.Logf("with WaitReplicas 1: claim during the cut = %v; renewal = %v", errL, errP)
	// P: its holder trusts the pre-cut minute, and the new master agrees.
	if v := stored(ctx, c, mode, name, p.MachineID); v != p.Token || ttlP <= 0 || ttlP > time.Minute {
		t.Fatalf("P after the failover = %q with %v left; want its token and the acknowledged minute", v, ttlP)
	}
	// The new master has no replica until the old one rejoins: until then
	// no renewal is acknowledged.
	if _, err := s.Renew(ctx, p, time.Minute); !errors.Is(err, driver.ErrRetry) {
		t.Fatalf("renewal of P on the new master without a replica = %v, want ErrRetry", err)
	}
	tc.restart(t, master)
	restarted = true
	if _, err := renewSoon(ctx, s, p); err != nil {
		t.Fatalf("renewal of P after the failover: %v", err)
	}
	t.Logf("with WaitReplicas 1: replica promoted %v after the kill; P kept its acknowledged lease (%v left) and renews; "+
		"the unacknowledged claim of ID %d was never trusted", took.Round(time.Millisecond), ttlP.Round(time.Second), l.MachineID)
}

// stored returns the token ID id holds under name ("" when none), and
// storedTTL its remaining TTL, on any client.
func stored(ctx context.Context, c redis.Cmdable, mode redislease.Mode, name string, id int) string {
	if mode == redislease.ModeKey {
		return c.Get(ctx, idKey(name, id)).Val()
	}
	return c.HGet(ctx, name, strconv.Itoa(id)).Val()
}

func storedTTL(ctx context.Context, c redis.Cmdable, mode redislease.Mode, name string, id int) time.Duration {
	if mode == redislease.ModeKey {
		return c.PTTL(ctx, idKey(name, id)).Val()
	}
	ms := c.HPTTL(ctx, name, strconv.Itoa(id)).Val()
	if len(ms) != 1 || ms[0] < 0 {
		return 0
	}
	return time.Duration(ms[0]) * time.Millisecond
}

// acquireSoon acquires a lease, with retries as in [soon].
func acquireSoon(ctx context.Context, s *redislease.Strategy) (driver.Lease, error) {
	return soon(ctx, s, func() (driver.Lease, error) { return s.Acquire(ctx, time.Minute) })
}

// claimSoon claims id, with retries as in [soon].
func claimSoon(ctx context.Context, s *redislease.Strategy, id int) (driver.Lease, error) {
	return soon(ctx, s, func() (driver.Lease, error) { return s.Claim(ctx, id, time.Minute) })
}

// soon calls take for a few seconds while it fails transiently
// (ErrRetry), releasing what a failed call may have written: an
// acquisition not acknowledged in time on a loaded machine, or a call
// right after a failover, while the cluster client can still reload its
// slot map from a node that has not learned of the promotion and dial the
// killed master.
func soon(ctx context.Context, s *redislease.Strategy, take func() (driver.Lease, error)) (driver.Lease, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, err := take()
		if err == nil || !errors.Is(err, driver.ErrRetry) || time.Now().After(deadline) {
			return l, err
		}
		if l.Token != "" {
			s.Release(ctx, l)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// renewSoon renews l, retrying ErrRetry for a few seconds while the
// cluster client finds the new master.
func renewSoon(ctx context.Context, s *redislease.Strategy, l driver.Lease) (driver.Lease, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := s.Renew(ctx, l, time.Minute)
		if err == nil || !errors.Is(err, driver.ErrRetry) || time.Now().After(deadline) {
			return r, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
