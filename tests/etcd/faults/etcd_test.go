package faults_test

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

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/tests/faultproxy"
	"github.com/once-go/once/tests/faultsuite"
)

// etcdCoordinator is the table entry of etcd: a fresh key prefix per test
// on the shared server (.ci/etcd.sh, ONCE_TEST_ETCD_ENDPOINTS), or a
// private server process on free ports for restarts. etcd keeps its data
// across a restart (its write-ahead log is fsynced), and so do the leases:
// a restart is not a loss. An expired lease's keys are deleted on the
// next revoke tick (freeLag). expirySlack: the kill case allows the
// holder's last renewal 1s of latency on etcd (500ms elsewhere), the bound
// ad13d50 set from loaded runs.
func etcdCoordinator(name string) faultsuite.Coordinator {
	return faultsuite.Coordinator{
		Name:         name,
		Network:      true,
		FreeLag:      etcdRevokeTick,
		ExpirySlack:  500 * time.Millisecond,
		Setup:        etcdSetup,
		Connect:      etcdConnect,
		HoldStrategy: etcdHoldStrategy,
	}
}

// etcdConnect opens a client of the etcd at target. The reconnection
// backoff is short (gRPC's default starts at 1s, longer than the suite's
// whole safe window), as an application with short leases would set it;
// nothing else deviates from the client's defaults. pool does not apply:
// gRPC multiplexes every call over one connection.
func etcdConnect(target, ns string, _ int) (*faultsuite.Client, error) {
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{target},
		DialTimeout: 2 * time.Second,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 200 * time.Millisecond},
			MinConnectTimeout: time.Second,
		})},
	})
	if err != nil {
		return nil, err
	}
	return &faultsuite.Client{
		Strategy: func(lowest bool) (driver.Strategy, error) {
			return etcdlease.New(c, etcdlease.Options{Prefix: ns, LowestFirst: lowest})
		},
		Close: c.Close,
	}, nil
}

// etcdHoldStrategy is a strategy on sp (the space of the etcd
// coordinator) whose Release keeps the ID taken for hold (0: the default
// hold; negative: none).
func etcdHoldStrategy(t *testing.T, sp *faultsuite.Space, hold time.Duration) driver.Strategy {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{sp.Target}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := etcdlease.New(c, etcdlease.Options{Prefix: sp.NS, ReleaseHold: hold})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// etcdRevokeTick is how often etcd's lessor revokes expired leases (fixed
// in the server): an ID becomes free 0..500ms, plus a raft commit, after
// its lease's TTL ended. It is etcd's freeLag.
const etcdRevokeTick = 500 * time.Millisecond

func etcdSetup(t *testing.T, private bool) *faultsuite.Space {
	t.Helper()
	sp := &faultsuite.Space{NS: testenv.Unique(t, "fault") + "/"}
	var srv *etcdServer
	if private {
		srv = startEtcdServer(t)
		sp.Target = srv.addr
	} else {
		sp.Target = testenv.Etcd(t)[0]
	}
	sp.Upstream = sp.Target
	sp.Via = func(addr string) string { return addr }
	admin, err := clientv3.New(clientv3.Config{Endpoints: []string{sp.Target}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcd admin client: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		etcdWipe(ctx, admin, sp.NS, true)
		admin.Close()
	})
	sp.Expiry = func(ctx context.Context, id int) (time.Time, bool, error) {
		return etcdExpiry(ctx, admin, sp.NS+strconv.Itoa(id))
	}
	sp.Held = func(ctx context.Context) (int, error) { return etcdHeld(ctx, admin, sp.NS) }
	sp.Fill = func(ctx context.Context, keep int, d time.Duration) error {
		return etcdFill(ctx, admin, sp.NS, keep, d)
	}
	// Wiping deletes the keys and leaves the etcd leases alive: the
	// holder's keep-alive still succeeds, its key check does not.
	sp.Wipe = func(ctx context.Context) error { return etcdWipe(ctx, admin, sp.NS, false) }
	if private {
		sp.Restart = func(ctx context.Context, _ *faultproxy.Proxy) error { return srv.restart() }
	}
	return sp
}

// etcdFill makes one etcd lease of d (whole seconds, rounded up) hold
// every machine ID but keep, in transactions of at most 100 puts (etcd's
// default --max-txn-ops is 128).
func etcdFill(ctx context.Context, c *clientv3.Client, prefix string, keep int, d time.Duration) error {
	g, err := c.Grant(ctx, int64((d+time.Second-1)/time.Second))
	if err != nil {
		return err
	}
	var ops []clientv3.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		_, err := c.Txn(ctx).Then(ops...).Commit()
		ops = ops[:0]
		return err
	}
	for id := range etcdlease.Capacity {
		if id == keep {
			continue
		}
		ops = append(ops, clientv3.OpPut(prefix+strconv.Itoa(id), "filler-token-0000000000", clientv3.WithLease(g.ID)))
		if len(ops) == 100 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// etcdWipe deletes every key under prefix; revoke also revokes their etcd
// leases (cleanup: no lease outlives its test).
func etcdWipe(ctx context.Context, c *clientv3.Client, prefix string, revoke bool) error {
	if revoke {
		if r, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly()); err == nil {
			seen := map[int64]bool{}
			for _, kv := range r.Kvs {
				if kv.Lease != 0 && !seen[kv.Lease] {
					seen[kv.Lease] = true
					c.Revoke(ctx, clientv3.LeaseID(kv.Lease))
				}
			}
		}
	}
	_, err := c.Delete(ctx, prefix, clientv3.WithPrefix())
	return err
}

// etcdHeld counts the keys under prefix: the IDs no one can acquire
// (including, for up to one 500ms revoke tick, those of leases whose TTL
// has just ended).
func etcdHeld(ctx context.Context, c *clientv3.Client, prefix string) (int, error) {
	r, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return int(r.Count), nil
}

// etcdExpiry returns when key's etcd lease ends. etcd reports a lease's
// remaining time in whole seconds, rounded down; to know it to the
// millisecond, TimeToLive is polled until the reported value steps down
// (it steps from k to k-1 when exactly k seconds remain), for at most
// 1.05s. A lease renewed meanwhile never steps down: the estimate then
// is the coarse one (the reported seconds plus half a second). So is a
// step seen only across a stalled poll (more than 20ms between the two
// readings), conservatively: the later bound.
func etcdExpiry(ctx context.Context, c *clientv3.Client, key string) (time.Time, bool, error) {
	r, err := c.Get(ctx, key)
	if err != nil || len(r.Kvs) == 0 {
		return time.Time{}, false, err
	}
	lid := clientv3.LeaseID(r.Kvs[0].Lease)
	if lid == 0 {
		return time.Now().Add(100 * 365 * 24 * time.Hour), true, nil
	}
	var first, prevSent time.Time
	last := int64(-2)
	for {
		sent := time.Now()
		tl, err := c.TimeToLive(ctx, lid)
		got := time.Now()
		if err != nil {
			return time.Time{}, false, err
		}
		if tl.TTL < 0 { // revoked meanwhile: the key is gone
			return time.Time{}, false, nil
		}
		switch {
		case last == -2:
			first = sent
		case tl.TTL == last-1:
			// The step happened between the previous request's arrival
			// and this one's reply.
			at := got
			if got.Sub(prevSent) <= 20*time.Millisecond {
				at = prevSent.Add(got.Sub(prevSent) / 2)
			}
			return at.Add(time.Duration(tl.TTL+1) * time.Second), true, nil
		case tl.TTL != last || time.Since(first) > 1050*time.Millisecond:
			return got.Add(time.Duration(tl.TTL)*time.Second + 500*time.Millisecond), true, nil
		}
		last, prevSent = tl.TTL, sent
	}
}

// etcdServer is a private etcd process on free loopback ports, with fast
// elections (heartbeat 10ms, election timeout 100ms) so that a restarted
// single-member cluster has a leader again within a fraction of the safe
// window. Killed when the test ends.
type etcdServer struct {
	bin, dir   string
	addr, peer string
	cmd        *exec.Cmd
	exited     chan struct{}
}

func startEtcdServer(t *testing.T) *etcdServer {
	t.Helper()
	bin := os.Getenv("ONCE_TEST_ETCD_BIN")
	if bin == "" {
		bin = "etcd"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		testenv.Unavailable(t, "etcd binary "+bin+" not found (apt-get install etcd-server, or run .ci/etcd.sh)")
	}
	s := &etcdServer{bin: p, dir: t.TempDir()}
	for range 3 { // a free port can be taken between probing and binding
		cp, pp := testenv.FreePort(t), testenv.FreePort(t)
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(cp))
		s.peer = net.JoinHostPort("127.0.0.1", strconv.Itoa(pp))
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("private etcd: %v", err)
	}
	t.Cleanup(s.kill)
	return s
}

// start runs etcd with its data in s.dir/data (kept across restarts) and
// waits until it answers /health (which needs a leader).
func (s *etcdServer) start() error {
	log := filepath.Join(s.dir, "etcd.log")
	cmd := exec.Command(s.bin, "--name", "private", "--data-dir", filepath.Join(s.dir, "data"),
		"--listen-client-urls", "http://"+s.addr, "--advertise-client-urls", "http://"+s.addr,
		"--listen-peer-urls", "http://"+s.peer, "--initial-advertise-peer-urls", "http://"+s.peer,
		"--initial-cluster", "private=http://"+s.peer, "--heartbeat-interval", "10", "--election-timeout", "100",
		"--logger", "zap", "--log-outputs", log)
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := testenv.EtcdHealthy(s.addr, time.Second)
		switch {
		case err == nil:
			return nil
		case time.Now().After(deadline):
			s.kill()
			return fmt.Errorf("etcd on %s did not answer: %v", s.addr, err)
		}
		select {
		case <-s.exited:
			b, _ := os.ReadFile(log)
			return fmt.Errorf("etcd on %s exited: %s", s.addr, faultsuite.LastLines(strings.TrimSpace(string(b)), 3))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// restart kills the server (SIGKILL: no chance to flush anything; etcd's
// fsynced write-ahead log must carry every acknowledged write) and starts
// it again on the same ports with the same data.
func (s *etcdServer) restart() error {
	s.kill()
	return s.start()
}

func (s *etcdServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		<-s.exited
	}
}
