package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
)

// faultKV and faultLease put an error in front of a real client's calls:
// what a server could answer, without needing a server that does.
type faultKV struct {
	clientv3.KV
	err func() error // nil: pass through
}

func (f faultKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.KV.Get(ctx, key, opts...)
}

func (f faultKV) Txn(ctx context.Context) clientv3.Txn {
	if err := f.err(); err != nil {
		return failedTxn{err}
	}
	return f.KV.Txn(ctx)
}

type failedTxn struct{ err error }

func (f failedTxn) If(...clientv3.Cmp) clientv3.Txn        { return f }
func (f failedTxn) Then(...clientv3.Op) clientv3.Txn       { return f }
func (f failedTxn) Else(...clientv3.Op) clientv3.Txn       { return f }
func (f failedTxn) Commit() (*clientv3.TxnResponse, error) { return nil, f.err }

type faultLease struct {
	clientv3.Lease
	err     func() error
	granted chan clientv3.LeaseID // every granted ID, if not nil
}

func (f faultLease) Grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	g, err := f.Lease.Grant(ctx, ttl)
	if err == nil && f.granted != nil {
		f.granted <- g.ID
	}
	return g, err
}

func (f faultLease) KeepAliveOnce(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseKeepAliveResponse, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.Lease.KeepAliveOnce(ctx, id)
}

func (f faultLease) Revoke(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseRevokeResponse, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.Lease.Revoke(ctx, id)
}

// TestErrorMapping: what each class of etcd error becomes, for every
// operation: permission and authentication errors and refused request
// shapes are ErrConfig; Unavailable, DeadlineExceeded, ended contexts, no
// leader, and unknown errors are ErrRetry; a missing etcd lease is ErrLost
// for Renew (Release's first request grants the hold's etcd lease, which
// cannot be missing: an unknown outcome).
func TestErrorMapping(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	held, err := strategy(t, real, prefix, true).Acquire(ctxT(t), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		err     error
		want    error // for every operation
		renew   error // for Renew if it differs
		release error // for Release if it differs (nil: no error)
	}{
		{"permission denied", rpctypes.ErrPermissionDenied, driver.ErrConfig, nil, driver.ErrConfig},
		{"auth failed", rpctypes.ErrAuthFailed, driver.ErrConfig, nil, driver.ErrConfig},
		{"invalid auth token", rpctypes.ErrInvalidAuthToken, driver.ErrConfig, nil, driver.ErrConfig},
		{"role not granted", rpctypes.ErrRoleNotGranted, driver.ErrConfig, nil, driver.ErrConfig},
		{"grpc permission denied", status.Error(codes.PermissionDenied, "no"), driver.ErrConfig, nil, driver.ErrConfig},
		{"grpc unauthenticated", status.Error(codes.Unauthenticated, "no"), driver.ErrConfig, nil, driver.ErrConfig},
		{"request too large", rpctypes.ErrRequestTooLarge, driver.ErrConfig, nil, driver.ErrConfig},
		{"unavailable", status.Error(codes.Unavailable, "connection refused"), driver.ErrRetry, nil, driver.ErrRetry},
		{"deadline", status.Error(codes.DeadlineExceeded, "slow"), driver.ErrRetry, nil, driver.ErrRetry},
		{"context deadline", context.DeadlineExceeded, driver.ErrRetry, nil, driver.ErrRetry},
		{"context canceled", context.Canceled, driver.ErrRetry, nil, driver.ErrRetry},
		{"no leader", rpctypes.ErrNoLeader, driver.ErrRetry, nil, driver.ErrRetry},
		{"leader changed", rpctypes.ErrLeaderChanged, driver.ErrRetry, nil, driver.ErrRetry},
		{"timeout", rpctypes.ErrTimeout, driver.ErrRetry, nil, driver.ErrRetry},
		{"no space", rpctypes.ErrNoSpace, driver.ErrRetry, nil, driver.ErrRetry},
		{"too many requests", rpctypes.ErrTooManyRequests, driver.ErrRetry, nil, driver.ErrRetry},
		{"client closing", status.Error(codes.Canceled, "grpc: the client connection is closing"), driver.ErrRetry, nil, driver.ErrRetry},
		{"unknown", errors.New("something odd"), driver.ErrRetry, nil, driver.ErrRetry},
		{"lease not found", rpctypes.ErrLeaseNotFound, driver.ErrRetry, driver.ErrLost, driver.ErrRetry},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc := newClient(t, real.Endpoints()...)
			on := func() error { return c.err }
			fc.KV = faultKV{KV: fc.KV, err: on}
			fc.Lease = faultLease{Lease: fc.Lease, err: on}
			s := strategy(t, fc, prefix, true)
			ctx := ctxT(t)
			check := func(op string, err, want error) {
				t.Helper()
				others := []error{driver.ErrConfig, driver.ErrRetry, driver.ErrLost}
				if want == nil {
					if err != nil {
						t.Errorf("%s: %v, want nil", op, err)
					}
					return
				}
				if !errors.Is(err, want) {
					t.Errorf("%s: %v, want %v", op, err, want)
				}
				for _, o := range others {
					if o != want && errors.Is(err, o) {
						t.Errorf("%s: %v matches %v as well as %v", op, err, o, want)
					}
				}
			}
			_, err := s.Acquire(ctx, time.Minute)
			check("Acquire", err, c.want)
			check("Check", s.Check(ctx), c.want)
			renew := c.want
			if c.renew != nil {
				renew = c.renew
			}
			_, err = s.Renew(ctx, held, time.Minute)
			check("Renew", err, renew)
			check("Release", s.Release(ctx, held), c.release)
		})
	}
	// Only the Renew keep-alive answering "lease not found" is a loss:
	// the key check before it passes.
	fc := newClient(t, real.Endpoints()...)
	fc.Lease = faultLease{Lease: fc.Lease, err: func() error { return rpctypes.ErrLeaseNotFound }}
	if _, err := strategy(t, fc, prefix, true).Renew(ctxT(t), held, time.Minute); !errors.Is(err, driver.ErrLost) {
		t.Errorf("keep-alive of a missing etcd lease: %v, want ErrLost", err)
	}
}

// TestClaimErrorRevokes: when every candidate was taken, the etcd lease
// granted for the attempt is revoked; when a claim's outcome is unknown,
// the claim is returned beside ErrRetry, and releasing it revokes that
// etcd lease.
func TestClaimErrorRevokes(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	ctx := ctxT(t)
	other := strategy(t, real, prefix, true)
	for range 3 {
		if _, err := other.Acquire(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		hide bool  // Get hides the existing keys: every candidate is taken
		txn  error // the claim fails with this
		want error
	}{
		{"conflict", true, nil, driver.ErrConflict},
		{"claim unknown", false, status.Error(codes.Unavailable, "reset"), driver.ErrRetry},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc := newClient(t, real.Endpoints()...)
			granted := make(chan clientv3.LeaseID, 1)
			fc.Lease = faultLease{Lease: fc.Lease, err: func() error { return nil }, granted: granted}
			fc.KV = hidingKV{KV: fc.KV, hide: c.hide, txnErr: c.txn}
			s, err := etcdlease.New(fc, etcdlease.Options{Prefix: prefix, LowestFirst: true, Candidates: 3})
			if err != nil {
				t.Fatal(err)
			}
			l, err := s.Acquire(ctx, time.Minute)
			if !errors.Is(err, c.want) {
				t.Fatalf("Acquire: %v, want %v", err, c.want)
			}
			lid := <-granted
			if c.txn != nil {
				if l.MachineID != 3 || !strings.HasPrefix(l.Token, fmt.Sprintf("%016x.", uint64(lid))) {
					t.Fatalf("Acquire returned %+v beside %v; want the claim of machine ID 3 on etcd lease %x", l, err, lid)
				}
				if err := other.Release(ctx, l); err != nil {
					t.Fatalf("Release of the returned claim: %v", err)
				}
			} else if l.Token != "" {
				t.Errorf("Acquire returned %+v beside %v: nothing was claimed", l, err)
			}
			if ttl := ttlOf(t, real, lid); ttl != -1 {
				t.Errorf("granted etcd lease still alive (TTL %ds)", ttl)
			}
		})
	}
}

// hidingKV hides every key from Get (hide) or fails transactions.
type hidingKV struct {
	clientv3.KV
	hide   bool
	txnErr error
}

func (h hidingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	r, err := h.KV.Get(ctx, key, opts...)
	if err == nil && h.hide {
		r.Kvs, r.Count = nil, 0
	}
	return r, err
}

func (h hidingKV) Txn(ctx context.Context) clientv3.Txn {
	if h.txnErr != nil {
		return failedTxn{h.txnErr}
	}
	return h.KV.Txn(ctx)
}

// TestPermissionDeniedReal: on a private server with authentication on,
// a user without a role gets ErrConfig from Check and Acquire.
func TestPermissionDeniedReal(t *testing.T) {
	srv := startEtcd(t)
	root := newClient(t, srv.addr)
	ctx := ctxT(t)
	for _, step := range []func() error{
		func() error { _, err := root.RoleAdd(ctx, "root"); return err },
		func() error { _, err := root.UserAdd(ctx, "root", "rootpw"); return err },
		func() error { _, err := root.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := root.UserAdd(ctx, "nobody", "pw"); return err },
		func() error { _, err := root.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatalf("setting up authentication: %v", err)
		}
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.addr}, Username: "nobody", Password: "pw",
		DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := etcdlease.New(c, etcdlease.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("Check without permission: %v, want ErrConfig", err)
	}
	if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("Acquire without permission: %v, want ErrConfig", err)
	}
}
