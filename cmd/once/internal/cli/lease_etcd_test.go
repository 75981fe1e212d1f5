//go:build etcd

package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/etcdlease"
)

func init() {
	buildTags = append(buildTags, "etcd")
	etcdReleaseHold = etcdlease.DefaultReleaseHold
	etcdSetup = func(t *testing.T) ([]string, func(*testing.T, int)) {
		flags, _, claim := etcdCLISetup(t)
		return flags, claim
	}
	taggedBackends = append(taggedBackends, leaseBackend{name: "etcd", setup: etcdSetup})
	taggedDead["etcd"] = func(t *testing.T, dead string) []string {
		return []string{"--driver", "etcd", "--dsn", "http://" + dead}
	}
}

// etcdCLISetup prepares a fresh key prefix on the shared etcd (its keys
// and etcd leases removed when the test ends) and returns the CLI flags
// that select it, a client, and a function that makes other holders take
// machine IDs 0..n-1 for an hour.
func etcdCLISetup(t *testing.T) ([]string, *clientv3.Client, func(t *testing.T, n int)) {
	t.Helper()
	ep := testenv.Etcd(t)[0]
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	prefix := testenv.Unique(t, "cli") + "/"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if r, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly()); err == nil {
			for _, kv := range r.Kvs {
				if kv.Lease != 0 {
					c.Revoke(ctx, clientv3.LeaseID(kv.Lease))
				}
			}
		}
		c.Delete(ctx, prefix, clientv3.WithPrefix())
		c.Close()
	})
	flags := []string{"--driver", "etcd", "--dsn", "http://" + ep, "--table", prefix}
	return flags, c, func(t *testing.T, n int) {
		t.Helper()
		s, err := etcdlease.New(c, etcdlease.Options{Prefix: prefix, LowestFirst: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := s.Acquire(context.Background(), time.Hour); err != nil {
				t.Fatalf("claim %d of %d: %v", i+1, n, err)
			}
		}
	}
}

// TestEtcdLeaseHoldSignal: hold prints machine_id=N; ls shows it held,
// with a TTL of about the lease duration, the hold process as its holder
// and the fingerprint of its token; SIGTERM releases it (exit 0) and ls
// shows it free once the release hold has passed.
func TestEtcdLeaseHoldSignal(t *testing.T) {
	t.Parallel()
	flags, c, claim := etcdCLISetup(t)
	claim(t, 3)
	p := startHold(t, append(flags, shortLease...)...)
	id := p.machineID(t)
	rows := ls(t, flags)
	if !rows[id].held || len(heldIDs(rows)) != 4 || id < 3 {
		t.Fatalf("ls during hold: held %v, want machine ID %d and the 3 claimed", heldIDs(rows), id)
	}
	if ttl := rows[id].ttl; ttl < 20*time.Second || ttl > 31*time.Second || rows[id].holder != holderOf(p) {
		t.Errorf("ls row %d during hold: %+v, want a TTL of about 30s and the holder %s", id, rows[id], holderOf(p))
	}
	r, err := c.Get(t.Context(), flags[5]+strconv.Itoa(id))
	if err != nil || len(r.Kvs) != 1 {
		t.Fatalf("key of machine ID %d: %v", id, err)
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%016x.%s", r.Kvs[0].Lease, r.Kvs[0].Value))
	if fp := hex.EncodeToString(sum[:4]); rows[id].token != fp {
		t.Errorf("ls fingerprint %s, want %s (SHA-256 of the etcd lease ID and the key's value)", rows[id].token, fp)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("hold after SIGTERM: exit %d, stderr %s", code, p.errb.String())
	}
	rows = lsAfterRelease(t, leaseBackend{name: "etcd"}, flags, func(rows []lsRow) bool { return !rows[id].held })
	if rows[id].held || len(heldIDs(rows)) != 3 {
		t.Errorf("after SIGTERM: held %v, row %d %+v; want only the 3 claimed, ID %d free",
			heldIDs(rows), id, rows[id], id)
	}
}

// TestEtcdLeaseHoldFor: hold --for exits 0 after it, with one line, and
// leaves the ID free; migrate says etcd needs none.
func TestEtcdLeaseHoldFor(t *testing.T) {
	t.Parallel()
	flags, _, _ := etcdCLISetup(t)
	p := startHold(t, append(append(flags, shortLease...), "--for", "2s")...)
	id := p.machineID(t)
	if code := p.wait(); code != 0 || len(p.out) != 1 {
		t.Fatalf("hold: exit %d, stdout %q, stderr %s", code, p.out, p.errb.String())
	}
	free := func(rows []lsRow) bool { return len(heldIDs(rows)) == 0 }
	if rows := lsAfterRelease(t, leaseBackend{name: "etcd"}, flags, free); !free(rows) {
		t.Errorf("after hold --for: held %v, want none (released %d)", heldIDs(rows), id)
	}
	r := runBin(t, append([]string{"lease", "migrate"}, flags...)...)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "needs no migration") {
		t.Errorf("lease migrate --driver etcd: %v", r)
	}
}

// TestEtcdLeaseHoldExhausted: with all 512 IDs taken, hold gives up after
// the acquire timeout with exit status 3 and the reason on stderr. The
// timeout leaves time for a listing of 512 holdings on a loaded machine, so
// that the last attempt fails with the exhaustion, not a timeout.
func TestEtcdLeaseHoldExhausted(t *testing.T) {
	t.Parallel()
	flags, _, claim := etcdCLISetup(t)
	claim(t, 512)
	start := time.Now()
	r := runBin(t, append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--acquire-timeout", "8s", "--for", "1s")...)...)
	if r.code != exitNoLease || r.stdout != "" || !strings.Contains(r.stderr, "acquire timeout") || !strings.Contains(r.stderr, "no free machine ID") {
		t.Fatalf("hold with every ID taken: %v", r)
	}
	if took := time.Since(start); took < 8*time.Second {
		t.Errorf("hold gave up after %v, before its 8s acquire timeout", took)
	}
	if held := heldIDs(ls(t, flags)); len(held) != 512 {
		t.Errorf("%d IDs held after the failed hold, want 512", len(held))
	}
}

// TestEtcdLeaseHoldRace: 12 hold processes race for the last 6 free IDs:
// exactly 6 print distinct machine IDs (free ones) and exit 0, 6 exit 3.
func TestEtcdLeaseHoldRace(t *testing.T) {
	t.Parallel()
	flags, _, claim := etcdCLISetup(t)
	claim(t, 506)
	raceSlots <- struct{}{}
	defer func() { <-raceSlots }()
	args := append(append(flags, shortLease...), "--acquire-timeout", "5s", "--for", "15s")
	procs := make([]*proc, 12)
	for i := range procs {
		procs[i] = startHold(t, args...)
	}
	var won []int
	lost := 0
	for i, p := range procs {
		switch code := p.wait(); code {
		case 0:
			if len(p.out) != 1 {
				// Two lines: the winner lost its lease during the hold
				// and took another. With a 30s lease renewed every
				// second that takes 20s without etcd; say why it lost.
				t.Errorf("winner %d printed %q (lost and re-acquired during the hold); stderr: %s", i, p.out, lastStderr(p.errb.String(), 5))
				continue
			}
			id, err := parseMachineID(p.out[0])
			if err != nil {
				t.Error(err)
				continue
			}
			won = append(won, id)
		case exitNoLease:
			lost++
		default:
			t.Errorf("process %d: exit %d, stderr %s", i, code, p.errb.String())
		}
	}
	if held := len(heldIDs(ls(t, flags))); held < 506 {
		// The 506 claims were made by this test and never released: a
		// coordinator that forgot them was restarted without its data
		// (the shared etcd), and nothing below can hold.
		t.Fatalf("only %d of the 506 claimed IDs still held after the race: etcd lost its data during the test", held)
	}
	slices.Sort(won)
	if len(won) != 6 || lost != 6 || len(slices.Compact(slices.Clone(won))) != 6 || won[0] < 506 {
		t.Fatalf("race: winners %v, %d losers; want 6 distinct winners among 506..511 and 6 losers", won, lost)
	}
	settled := func(rows []lsRow) bool { return len(heldIDs(rows)) == 506 }
	if held := heldIDs(lsAfterRelease(t, leaseBackend{name: "etcd"}, flags, settled)); len(held) != 506 {
		t.Errorf("after the race %d IDs held, want the 506 claimed", len(held))
	}
}

// TestEtcdLeaseInProcess runs hold and ls through run(), so the race
// detector sees the etcd driver (the binary is built without -race); with
// --release-hold 0 the released ID is free at once.
func TestEtcdLeaseInProcess(t *testing.T) {
	t.Parallel()
	flags, _, _ := etcdCLISetup(t)
	r := cli("", append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--for", "1500ms", "--release-hold", "0", "--verbose")...)...)
	if r.code != 0 || len(r.lines()) != 1 || !strings.Contains(r.stderr, "lease release done") || !strings.Contains(r.stderr, "strategy=etcd") {
		t.Fatalf("hold: %v", r)
	}
	id, err := parseMachineID(r.lines()[0])
	if err != nil {
		t.Fatal(err)
	}
	if row := lsIn(t, flags)[id]; row.held {
		t.Fatalf("ls after hold --release-hold 0: machine ID %d %+v, want it free", id, row)
	}
}

// TestEtcdUsageErrors: a bad --dsn, --mode, or a prefix ending with a
// digit are usage errors (exit 2); an unreachable server is a failure
// (exit 1).
func TestEtcdUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--dsn", "redis://127.0.0.1:2379"},
		{"--dsn", "http://127.0.0.1"},
		{"--dsn", "http://127.0.0.1:2379/path"},
		{"--dsn", "http://127.0.0.1:2379,https://127.0.0.1:2380"},
		{"--dsn", "http://127.0.0.1:2379,"},
		{"--dsn", "http://127.0.0.1:2379,http://u:p@127.0.0.1:2380"},
		{"--dsn", "http://127.0.0.1:2379", "--table", "leases7"},
		{"--dsn", "http://127.0.0.1:2379", "--mode", "key"},
	} {
		r := cli("", append([]string{"lease", "ls", "--driver", "etcd"}, args...)...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "usage:") {
			t.Errorf("lease ls %v: %v; want a usage error", args, r)
		}
	}
	r := cli("", "lease", "ls", "--driver", "etcd", "--dsn", "http://"+testenv.DeadAddr(t))
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "connecting to etcd") {
		t.Errorf("lease ls on a dead endpoint: %v; want exit 1", r)
	}
}

// lastStderr returns the last n lines of a process's stderr.
func lastStderr(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
