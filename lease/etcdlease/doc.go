// Package etcdlease leases machine IDs (0..511) from etcd through a
// go.etcd.io/etcd/client/v3 client the application already has. It
// implements [github.com/once-go/once/lease.Strategy] and
// [github.com/once-go/once/lease.Reclaimer].
//
// # Layout
//
// One key per machine ID under a prefix (default "once_leases/"):
// "once_leases/17" = token, attached to an etcd lease. The key exists
// exactly as long as its holder's etcd lease lives, so the server's lease
// expiry, not any client clock, frees an ID.
//
//   - Acquire lists the keys present, grants an etcd lease with the
//     requested TTL (whole seconds, rounded up), then tries free IDs one
//     transaction each: create the key only if it does not exist
//     (CreateRevision == 0), value = a random token, attached to that
//     lease. It fails with [lease.ErrExhausted] when all 512 keys exist and
//     [lease.ErrConflict] when racing contenders took every candidate; the
//     granted etcd lease is revoked whenever no key was won.
//   - Renew sends one keep-alive (KeepAliveOnce) for the etcd lease, then
//     checks that the key still holds the token on it. An etcd lease that
//     no longer exists, or a key that is gone or holds another token (a
//     wiped prefix), is [lease.ErrLost]. The TTL reported is the one etcd
//     reports. A renewal whose reply was lost was applied; its replay
//     succeeds.
//   - Release revokes the etcd lease, which deletes the key with it.
//
// [lease.Lease].Token carries the etcd lease ID and the token
// ("<lease ID, 16 hex digits>.<token>"). Reclaim (after a restart, from
// lease.Options.StateFile) is Renew.
//
// An etcd lease's TTL is fixed when it is granted; a renewal asking for a
// longer duration than the key's lease has moves the key, in one
// transaction, to a new etcd lease of that TTL. The lease manager asks for
// the same duration every time, so this does not happen in practice.
//
// # Errors
//
// gRPC Unavailable and DeadlineExceeded, ended contexts, transport errors,
// "no leader" and every other unknown outcome are [lease.ErrRetry].
// Permission and authentication failures, and requests etcd refuses as
// malformed (a TTL above its maximum, a request too large), are
// [lease.ErrConfig]. Every request runs with clientv3.WithRequireLeader and
// is bounded by [Options.RequestTimeout] as well as by its context.
//
// # Clients
//
// The client is the application's: point it at the cluster (or a proxy),
// configure TLS and authentication as usual. etcd's client waits for a
// connection rather than failing fast, so set DialKeepAliveTime and
// DialKeepAliveTimeout (a few seconds) to let it notice a dead connection
// behind a silent network partition; RequestTimeout turns each hung request
// into a retry.
//
// etcd keeps no record of an expired lease, so Lease.PrevExpiry is zero,
// and responses carry no server time, so Lease.CoordinatorNow is zero: the
// hand-off to a new holder is guarded by the manager's safety margin (the
// previous holder stopped a margin before its etcd lease could expire).
package etcdlease
