package redislease_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
)

// A Redis Cluster of three masters with one replica each, started by the
// test on loopback: six redis-server processes with temporary
// directories, joined by redis-cli --cluster create. Failure detection
// takes cluster-node-timeout 3000ms (shorter timeouts saw a master failed
// over while this machine was busy), a replica may be promoted however
// long its link to the master has been down (validity factor 0), and the
// DEBUG command is enabled so that a test can stall a replica.

// clusterBinaries names the redis-server and redis-cli of a cluster.
type clusterBinaries struct {
	name        string
	server, cli string
}

// redis7Binaries are the redis-server and redis-cli on PATH (Redis 7 on
// this project's machines); redis8Binaries the Redis 8 wrappers that
// ../shared/tools/kv-servers.sh installs under $KV_DIR (/opt/once-kv).
func redis7Binaries(t *testing.T) clusterBinaries {
	t.Helper()
	testenv.Short(t, "a private Redis 7 cluster")
	server, err1 := exec.LookPath("redis-server")
	cli, err2 := exec.LookPath("redis-cli")
	if err1 != nil || err2 != nil {
		testenv.Unavailable(t, "redis-server or redis-cli not on PATH: the Redis Cluster tests start their own cluster")
	}
	return clusterBinaries{"redis7", server, cli}
}

func redis8Binaries(t *testing.T) clusterBinaries {
	t.Helper()
	testenv.Short(t, "a private Redis 8 cluster")
	dir := os.Getenv("KV_DIR")
	if dir == "" {
		dir = "/opt/once-kv"
	}
	b := clusterBinaries{"redis8", filepath.Join(dir, "redis8.sh"), filepath.Join(dir, "redis8-cli.sh")}
	for _, f := range []string{b.server, b.cli} {
		if _, err := os.Stat(f); err != nil {
			testenv.Unavailable(t, "Redis 8 binaries not found under "+dir+" (run ../shared/tools/kv-servers.sh fetch)")
		}
	}
	return b
}

// clusterNode is one redis-server of a test cluster.
type clusterNode struct {
	addr   string
	dir    string
	args   []string
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// testCluster is a running test cluster.
type testCluster struct {
	bins  clusterBinaries
	nodes []*clusterNode
}

// startCluster starts six nodes and joins them as three masters with one
// replica each; it returns once every node reports cluster_state:ok and
// every master has its replica connected. The nodes are killed when the
// test ends.
func startCluster(t *testing.T, bins clusterBinaries) *testCluster {
	t.Helper()
	return startClusterOn(t, bins, freePorts)
}

// startClusterOn is startCluster with the nodes' ports taken from pick.
func startClusterOn(t *testing.T, bins clusterBinaries, pick func(*testing.T, int) []string) *testCluster {
	t.Helper()
	tc := &testCluster{bins: bins}
	ports := pick(t, 12)
	for i := range 6 {
		n := &clusterNode{dir: t.TempDir()}
		t.Cleanup(func() { n.kill() })
		tc.launch(t, n, ports[2*i], ports[2*i+1], pick)
		tc.nodes = append(tc.nodes, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"--cluster", "create"}
	for _, n := range tc.nodes {
		args = append(args, n.addr)
	}
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, bins.cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, n := range tc.nodes {
		tc.await(t, ctx, n.addr, func(c *redis.Client) error {
			info, err := c.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("cluster_state not ok")
			}
			repl, err := c.Info(ctx, "replication").Result()
			if err != nil {
				return err
			}
			switch {
			case strings.Contains(repl, "role:master") && !strings.Contains(repl, "connected_slaves:1"):
				return fmt.Errorf("master without its replica")
			case strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up"):
				return fmt.Errorf("replica not in sync")
			}
			return everyShardReplicated(ctx, c)
		})
	}
	return tc
}

// everyShardReplicated reports, as an error, whether the node's CLUSTER
// SHARDS names an online replica for every slot range.
func everyShardReplicated(ctx context.Context, c *redis.Client) error {
	slots, err := slotOwners(ctx, c)
	if err != nil {
		return err
	}
	if len(slots) == 0 {
		return fmt.Errorf("no slots")
	}
	for _, s := range slots {
		if len(s.replicas) == 0 {
			return fmt.Errorf("slots %d-%d have no replica yet", s.start, s.end)
		}
	}
	return nil
}

// slotRange is a range of hash slots, the master that serves it and that
// master's online replicas (what CLUSTER SLOTS lists, read from CLUSTER
// SHARDS).
type slotRange struct {
	start, end int64
	master     string
	replicas   []string
}

// slotOwners returns the slot ranges of the cluster as the node c talks
// to sees them. A replica counts once it is online: neither failed nor
// still loading its first copy of the master's data. Of two masters in
// one shard (a failed one and its promoted replica), the online one
// serves the slots.
func slotOwners(ctx context.Context, c interface {
	ClusterShards(context.Context) *redis.ClusterShardsCmd
}) ([]slotRange, error) {
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil {
		return nil, err
	}
	var out []slotRange
	for _, sh := range shards {
		var master string
		var replicas []string
		for _, n := range sh.Nodes {
			addr := net.JoinHostPort(n.IP, strconv.FormatInt(n.Port, 10))
			switch {
			case n.Role == "master" && (master == "" || n.Health == "online"):
				master = addr
			case n.Role == "replica" && n.Health == "online":
				replicas = append(replicas, addr)
			}
		}
		for _, r := range sh.Slots {
			out = append(out, slotRange{r.Start, r.End, master, replicas})
		}
	}
	return out, nil
}

// freePorts returns n distinct loopback ports for servers
// ([testenv.FreePort]).
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	ports := make([]string, n)
	for i := range ports {
		ports[i] = strconv.Itoa(testenv.FreePort(t))
	}
	return ports
}

// launch starts a node in n.dir on port and bus and waits until it
// answers PING. A probed port can be taken before the server binds it
// (by another test that picked the same one): when the server exits
// because a port is in use, launch tries again on two ports from pick.
func (tc *testCluster) launch(t *testing.T, n *clusterNode, port, bus string, pick func(*testing.T, int) []string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		n.addr = "127.0.0.1:" + port
		n.args = []string{"--port", port, "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(n.dir, "nodes.conf"), "--cluster-port", bus,
			"--cluster-node-timeout", "3000", "--cluster-replica-validity-factor", "0",
			"--repl-diskless-sync-delay", "0", "--save", "", "--appendonly", "no", "--dir", n.dir,
			"--enable-debug-command", "yes", "--logfile", filepath.Join(n.dir, "redis.log")}
		tc.start(t, n)
		err := n.awaitPing(10 * time.Second)
		if err == nil {
			return
		}
		log := n.logTail()
		n.kill()
		if attempt == 5 || !strings.Contains(log, "Address already in use") {
			t.Fatalf("cluster node %s: %v (log: %s)", n.addr, err, log)
		}
		os.Remove(filepath.Join(n.dir, "nodes.conf"))
		os.Remove(filepath.Join(n.dir, "redis.log"))
		ports := pick(t, 2)
		port, bus = ports[0], ports[1]
	}
}

// awaitPing waits up to d for the node to answer PING, and gives up as
// soon as its process exits.
func (n *clusterNode) awaitPing(d time.Duration) error {
	c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	deadline := time.After(d)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		select {
		case <-n.exited:
			return fmt.Errorf("redis-server exited: %v", n.cmd.ProcessState)
		case <-deadline:
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// start starts n's redis-server with n.args.
func (tc *testCluster) start(t *testing.T, n *clusterNode) {
	t.Helper()
	n.cmd = exec.Command(tc.bins.server, n.args...)
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", tc.bins.server, err)
	}
	n.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { cmd.Wait(); close(exited) }(n.cmd, n.exited)
}

// restart starts the killed node at addr again, from its nodes.conf: it
// rejoins as the replica of the master that replaced it. restart returns
// once every slot range has a replica again.
func (tc *testCluster) restart(t *testing.T, addr string) {
	t.Helper()
	n := tc.node(addr)
	tc.start(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tc.await(t, ctx, addr, func(c *redis.Client) error {
		repl, err := c.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(repl, "role:slave") || !strings.Contains(repl, "master_link_status:up") {
			return fmt.Errorf("not a replica in sync yet")
		}
		return everyShardReplicated(ctx, c)
	})
	for _, o := range tc.nodes {
		if o.running() {
			tc.await(t, ctx, o.addr, everyShardReplicatedCheck(ctx))
		}
	}
}

func everyShardReplicatedCheck(ctx context.Context) func(*redis.Client) error {
	return func(c *redis.Client) error { return everyShardReplicated(ctx, c) }
}

// await polls the node at addr with check until it passes or ctx ends.
func (tc *testCluster) await(t *testing.T, ctx context.Context, addr string, check func(*redis.Client) error) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for {
		err := check(c)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("cluster node %s: %v (log: %s)", addr, err, tc.logTail(addr))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// logTail returns the end of the log of the node at addr.
func (tc *testCluster) logTail(addr string) string {
	if n := tc.node(addr); n != nil {
		return n.logTail()
	}
	return ""
}

// logTail returns the end of the node's log.
func (n *clusterNode) logTail() string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "redis.log"))
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return string(b)
}

// running reports whether the node's process was started and has not
// exited.
func (n *clusterNode) running() bool {
	if n.exited == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// kill stops the node's process with SIGKILL and waits until it exits.
func (n *clusterNode) kill() {
	if n.running() {
		n.cmd.Process.Kill()
	}
	if n.exited != nil {
		<-n.exited
	}
}

// addrs returns the addresses of tc's nodes.
func (tc *testCluster) addrs() []string {
	addrs := make([]string, len(tc.nodes))
	for i, n := range tc.nodes {
		addrs[i] = n.addr
	}
	return addrs
}

// client returns a cluster client on tc, closed when the test ends.
func (tc *testCluster) client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	addrs := tc.addrs()
	// A short read timeout: a slot map read from a stalled replica (see
	// isolate) gives up soon and the client keeps its map.
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true, PoolSize: 50,
		DialTimeout: time.Second, ReadTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// node returns the node at addr.
func (tc *testCluster) node(addr string) *clusterNode {
	for _, n := range tc.nodes {
		if n.addr == addr {
			return n
		}
	}
	return nil
}

// shard returns the master and the replica that serve key's slot.
func (tc *testCluster) shard(t *testing.T, ctx context.Context, c *redis.ClusterClient, key string) (master, replica string) {
	t.Helper()
	slot, err := c.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	slots, err := slotOwners(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		if s.start <= slot && slot <= s.end && s.master != "" {
			if len(s.replicas) > 0 {
				replica = s.replicas[0]
			}
			return s.master, replica
		}
	}
	t.Fatalf("no node serves slot %d", slot)
	return "", ""
}

// nameOn returns a fresh NAME whose slot the master at addr serves, so
// that tests that kill a master each take another one.
func (tc *testCluster) nameOn(t *testing.T, ctx context.Context, c *redis.ClusterClient, addr string) string {
	t.Helper()
	for i := range 1000 {
		name := testenv.Unique(t, "once_leases_"+strconv.Itoa(i))
		if m, _ := tc.shard(t, ctx, c, name); m == addr {
			return name
		}
	}
	t.Fatalf("no name found on %s", addr)
	return ""
}

// awaitPromoted waits until the node at addr (a replica whose master was
// killed) serves key's slot as a master, every live node names only live
// masters and c has the new slot map. It returns how long the promotion
// took.
func (tc *testCluster) awaitPromoted(t *testing.T, c *redis.ClusterClient, key, addr string) time.Duration {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tc.await(t, ctx, addr, func(n *redis.Client) error {
		repl, err := n.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(repl, "role:master") {
			return fmt.Errorf("not promoted")
		}
		info, err := n.ClusterInfo(ctx).Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return fmt.Errorf("cluster_state not ok")
		}
		return nil
	})
	took := time.Since(start)
	// Every live node must have learned of the promotion: the cluster
	// client reloads its slot map from any node, and one that still names
	// the killed master sends the client to it.
	for _, o := range tc.nodes {
		if o.running() {
			tc.await(t, ctx, o.addr, func(n *redis.Client) error { return tc.servedByLiveMasters(ctx, n) })
		}
	}
	for {
		c.ReloadState(ctx)
		if m, err := c.MasterForKey(ctx, key); err == nil && m.Options().Addr == addr {
			return took
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the cluster client does not see %s serving %s", addr, key)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// servedByLiveMasters reports, as an error, whether the node n talks to
// names a master that is not running for some slot range.
func (tc *testCluster) servedByLiveMasters(ctx context.Context, n *redis.Client) error {
	slots, err := slotOwners(ctx, n)
	if err != nil {
		return err
	}
	for _, s := range slots {
		if m := tc.node(s.master); m == nil || !m.running() {
			return fmt.Errorf("slots %d-%d still served by %s", s.start, s.end, s.master)
		}
	}
	return nil
}

// isolate stalls the replica at addr for d (DEBUG SLEEP) and, once it
// sleeps, has its master drop the replication link (CLIENT KILL TYPE
// replica). Writes on the master from then on reach no replica: the
// sleeping replica cannot reconnect, and when it wakes its master may be
// gone. It returns once the master has no replica connected.
func (tc *testCluster) isolate(t *testing.T, replica, master string, d time.Duration) {
	t.Helper()
	r := redis.NewClient(&redis.Options{Addr: replica, MaxRetries: -1, ReadTimeout: d + 5*time.Second})
	go func() {
		defer r.Close()
		r.Do(context.Background(), "DEBUG", "SLEEP", strconv.FormatFloat(d.Seconds(), 'f', 3, 64))
	}()
	probe := redis.NewClient(&redis.Options{Addr: replica, MaxRetries: -1, ReadTimeout: 100 * time.Millisecond})
	defer probe.Close()
	for probe.Ping(context.Background()).Err() == nil {
		time.Sleep(10 * time.Millisecond) // not asleep yet
	}
	m := redis.NewClient(&redis.Options{Addr: master, MaxRetries: -1})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err(); err != nil {
		t.Fatalf("CLIENT KILL TYPE replica on %s: %v", master, err)
	}
	tc.await(t, ctx, master, func(c *redis.Client) error {
		repl, err := c.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(repl, "connected_slaves:0") {
			return fmt.Errorf("replica still connected")
		}
		return nil
	})
}

// stillCut reports, as an error, whether the master at addr has a replica
// connected again.
func (tc *testCluster) stillCut(ctx context.Context, master string) error {
	m := redis.NewClient(&redis.Options{Addr: master, MaxRetries: -1})
	defer m.Close()
	repl, err := m.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	if !strings.Contains(repl, "connected_slaves:0") {
		return fmt.Errorf("the replica reconnected")
	}
	return nil
}
