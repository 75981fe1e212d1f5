package redislease_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// TestReplicas: a master with a connected replica (two private servers)
// is refused unless WaitReplicas covers the replica or AcceptReplicaLoss
// is set; with WaitReplicas 1 claims and renewals are acknowledged; with
// WaitReplicas 2 (more than exist) every claim comes back beside ErrRetry,
// naming how many replicas acknowledged it.
func TestReplicas(t *testing.T) {
	for _, tg := range []target{targets[0], targets[1], targets[3]} {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			m := privateServer(t, tg.srv)
			_, port, _ := net.SplitHostPort(m.Options().Addr)
			r := privateServer(t, tg.srv, "--replicaof", "127.0.0.1", port)
			ctx := ctxT(t)
			for {
				info := m.Info(ctx, "replication").Val()
				if strings.Contains(info, "connected_slaves:1") && strings.Contains(r.Info(ctx, "replication").Val(), "master_link_status:up") {
					break
				}
				if ctx.Err() != nil {
					t.Fatal("the replica never connected")
				}
				time.Sleep(20 * time.Millisecond)
			}
			err := strategyOpts(t, m, redislease.Options{Mode: tg.mode}).Check(ctx)
			if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "1 connected replicas and Options.WaitReplicas is 0") ||
				!strings.Contains(err.Error(), "AcceptReplicaLoss") {
				t.Fatalf("Check with a replica and no WaitReplicas = %v, want ErrConfig naming WaitReplicas and AcceptReplicaLoss", err)
			}
			if err := strategyOpts(t, m, redislease.Options{Mode: tg.mode, AcceptReplicaLoss: true}).Check(ctx); err != nil {
				t.Fatalf("Check with AcceptReplicaLoss: %v", err)
			}

			s := strategyOpts(t, m, redislease.Options{Mode: tg.mode, WaitReplicas: 1})
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatalf("Acquire with WaitReplicas 1: %v", err)
			}
			if _, err := s.Renew(ctx, l, time.Minute); err != nil {
				t.Fatalf("Renew with WaitReplicas 1: %v", err)
			}
			if got := stored(ctx, r, tg.mode, "once_leases", l.MachineID); got != l.Token {
				t.Fatalf("the replica holds %q for ID %d right after the acknowledged claim, want %q", got, l.MachineID, l.Token)
			}
			if slots, err := s.List(ctx); err != nil || len(slots) != 1 {
				t.Fatalf("List = %v, %v", slots, err)
			}

			two := strategyOpts(t, m, redislease.Options{Mode: tg.mode, WaitReplicas: 2, WaitTimeout: 50 * time.Millisecond})
			g, err := two.Acquire(ctx, time.Minute)
			if !errors.Is(err, driver.ErrRetry) || g.Token == "" || !strings.Contains(err.Error(), "1 of Options.WaitReplicas 2 replicas acknowledged") {
				t.Fatalf("Acquire with WaitReplicas 2 = lease %q, %v; want the claim beside ErrRetry naming 1 of 2", g.Token, err)
			}
			if _, err := two.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrRetry) {
				t.Fatalf("Renew with WaitReplicas 2 = %v, want ErrRetry", err)
			}
			if err := two.Release(ctx, g); err != nil {
				t.Fatal(err)
			}
		})
	}
}
