package soakrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// cluster is a private Redis Cluster: three masters with one replica each
// (Redis 7's redis-server and redis-cli), cluster-node-timeout 3s.
type cluster struct {
	server, cli string
	nodes       []*cnode
	ns          string
}

type cnode struct {
	addr, dir string
	args      []string
	cmd       *exec.Cmd
	exited    chan struct{}
}

func (n *cnode) start(bin string) error {
	log, err := os.OpenFile(filepath.Join(n.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(bin, n.args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	n.cmd, n.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(n.exited) }()
	return nil
}

func (n *cnode) kill() {
	if n.cmd != nil && n.cmd.Process != nil {
		syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		<-n.exited
	}
}

func startCluster(ctx context.Context, dir, ns string) (*cluster, error) {
	cl := &cluster{server: envOr("ONCE_TEST_REDIS7_BIN", "redis-server"), cli: envOr("ONCE_TEST_REDIS7_CLI", "redis-cli"), ns: ns}
	for i := range 6 {
		p1, err := freePort()
		if err != nil {
			return nil, err
		}
		p2, err := freePort()
		if err != nil {
			return nil, err
		}
		nd := filepath.Join(dir, "cluster", strconv.Itoa(i))
		if err := os.MkdirAll(nd, 0o755); err != nil {
			return nil, err
		}
		port, bus := strconv.Itoa(p1), strconv.Itoa(p2)
		n := &cnode{addr: "127.0.0.1:" + port, dir: nd, args: []string{"--port", port, "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(nd, "nodes.conf"), "--cluster-port", bus,
			"--cluster-node-timeout", "3000", "--cluster-replica-validity-factor", "0",
			"--repl-diskless-sync-delay", "0", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", nd}}
		if err := n.start(cl.server); err != nil {
			cl.kill()
			return nil, err
		}
		cl.nodes = append(cl.nodes, n)
	}
	for _, n := range cl.nodes {
		if err := await(ctx, n.addr, func(c *redis.Client) error { return c.Ping(ctx).Err() }); err != nil {
			cl.kill()
			return nil, err
		}
	}
	args := []string{"--cluster", "create"}
	args = append(args, cl.addrs()...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cl.cli, args...).CombinedOutput(); err != nil {
		cl.kill()
		return nil, fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, n := range cl.nodes {
		if err := await(ctx, n.addr, clusterOK(ctx)); err != nil {
			cl.kill()
			return nil, err
		}
	}
	return cl, nil
}

func clusterOK(ctx context.Context) func(c *redis.Client) error {
	return func(c *redis.Client) error {
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
		return nil
	}
}

func await(ctx context.Context, addr string, check func(*redis.Client) error) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var err error
	for {
		if err = check(c); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %v", addr, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (cl *cluster) addrs() []string {
	var a []string
	for _, n := range cl.nodes {
		a = append(a, n.addr)
	}
	return a
}

func (cl *cluster) kill() {
	for _, n := range cl.nodes {
		n.kill()
	}
}

// failover kills (SIGKILL) the master serving the lease keys' slot, waits
// until its replica is promoted (cluster-node-timeout), restarts the
// killed node (it rejoins as a replica) and waits for the cluster to be
// whole again.
func (cl *cluster) failover(ctx context.Context) error {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.addrs()})
	defer cc.Close()
	key := "{" + cl.ns + "}:0"
	m, err := cc.MasterForKey(ctx, key)
	if err != nil {
		return err
	}
	addr := m.Options().Addr
	var victim *cnode
	for _, n := range cl.nodes {
		if n.addr == addr {
			victim = n
		}
	}
	if victim == nil {
		return fmt.Errorf("master %s of %s is not ours", addr, key)
	}
	victim.kill()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cc.ReloadState(ctx)
		if m, err := cc.MasterForKey(ctx, key); err == nil && m.Options().Addr != addr {
			if m.Ping(ctx).Err() == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			err := fmt.Errorf("no replica of %s promoted in 60s", addr)
			if serr := victim.start(cl.server); serr != nil {
				err = fmt.Errorf("%w; restarting it: %v", err, serr)
			}
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := victim.start(cl.server); err != nil {
		return err
	}
	for _, n := range cl.nodes {
		if err := await(ctx, n.addr, clusterOK(ctx)); err != nil {
			return err
		}
	}
	return nil
}
