// Package etcdlease leases machine IDs (0..511) from etcd through a
// go.etcd.io/etcd/client/v3 client the application already has. It
// implements [driver.Strategy], [driver.Reclaimer] and [driver.Lister]. It
// is a Go module of its own, so that etcd's client is required only by
// applications that use it.
//
//	s, err := etcdlease.New(cli, etcdlease.Options{}) // keys under "once_leases/"
//	m, err := lease.Start(ctx, s, lease.Options{Factories: []*nonce.Factory{f}})
//
// One key per machine ID under a prefix, attached to a native etcd lease,
// holding a random token and the holder ([Options.Holder]); the server's
// lease expiry, not a client clock, frees an ID. Acquire creates a free key
// in a transaction (CreateRevision == 0); Renew is a keep-alive plus a check
// that the key still holds the token; Release keeps the key taken for
// [Options.ReleaseHold] (default 3s) on a fresh etcd lease, so that the
// lease manager's hand-off guard needs no wait (every process sharing a
// prefix must release alike); Reclaim moves the key to a new token. Data
// survives etcd restarts, so a restart is not a loss.
//
// gRPC Unavailable, timeouts and every other unknown outcome are
// [driver.ErrRetry]; permission and authentication failures and refused
// requests are [driver.ErrConfig]. Every request is bounded by
// [Options.RequestTimeout]. Set the client's DialKeepAliveTime and
// DialKeepAliveTimeout (a few seconds) so that it notices a dead connection
// behind a silent partition.
//
// The layout, hand-offs, errors and clients in detail: docs/coordinators.md
// in the repository (https://github.com/once-go/once).
package etcdlease
