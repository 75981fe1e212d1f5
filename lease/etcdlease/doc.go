// Package etcdlease leases machine IDs (0..511) from etcd through a
// go.etcd.io/etcd/client/v3 client the application already has. It
// implements [github.com/once-go/once/lease.Strategy],
// [github.com/once-go/once/lease.Reclaimer] and
// [github.com/once-go/once/lease.Lister].
//
// # Layout
//
// One key per machine ID under a prefix (default "once_leases/"):
// "once_leases/17" = "<token>|<holder>", attached to an etcd lease. The
// token is 16 random bytes (base64url), the holder who took the lease
// ([Options.Holder], by default "host/pid"); the whole value is the
// lease's proof of ownership. The key exists exactly as long as its
// holder's etcd lease lives, so the server's lease expiry, not any client
// clock, frees an ID. [Strategy.List] reports the held IDs with their
// holders and remaining TTLs.
//
//   - Acquire lists the keys present, grants an etcd lease with the
//     requested TTL (whole seconds, rounded up), then tries free IDs one
//     transaction each: create the key only if it does not exist
//     (CreateRevision == 0), value = a new token and the holder, attached
//     to that lease. It fails with [lease.ErrExhausted] when all 512 keys exist and
//     [lease.ErrConflict] when racing contenders took every candidate (the
//     granted etcd lease is then revoked). A claim whose outcome is unknown
//     is returned beside [lease.ErrRetry], for the manager to release.
//   - Renew sends one keep-alive (KeepAliveOnce) for the etcd lease, then
//     checks that the key still holds the token on it. An etcd lease that
//     no longer exists, or a key that is gone or holds another token (a
//     wiped prefix), is [lease.ErrLost]. The TTL reported is the one etcd
//     reports. A renewal whose reply was lost was applied; its replay
//     succeeds.
//   - Release moves the key, if it still holds the token, to a fresh etcd
//     lease of [Options.ReleaseHold] with the value "released", and revokes
//     the holder's etcd lease (see Hand-offs).
//   - Reclaim (after a restart, from lease.Options.StateFile) moves the
//     key, if it still holds the token, to a fresh etcd lease with a new
//     token, in one transaction: a copied state file is used at most once.
//
// [lease.Lease].Token carries the etcd lease ID and the key's value
// ("<lease ID, 16 hex digits>.<token>|<holder>"). No call starts anything
// that outlives it: an etcd lease a failed call leaves behind holds no
// key, or only the key of a lease the call returned, and expires with its
// TTL.
//
// An etcd lease's TTL is fixed when it is granted; a renewal asking for a
// longer duration than the key's lease has moves the key, in one
// transaction, to a new etcd lease of that TTL. The lease manager asks for
// the same duration every time, so this does not happen in practice.
//
// # Hand-offs
//
// etcd keeps no record of an expired lease, so Lease.PrevExpiry is zero,
// and its responses carry no server time, so Lease.CoordinatorNow is zero:
// the lease manager guards a hand-off with its own clock. An ID found
// free was freed in one of two ways. Its holder's etcd lease expired: the
// holder stopped generating a safety margin (10s) before that. Or its
// holder released it: it stopped generating before the release, and the
// key then stayed taken for ReleaseHold (default 3s), counted from the
// grant of the hold's etcd lease, which comes after the holder stopped.
// Every lease reports that hold as lease.Lease.ReleaseHold, and the
// manager starts a new holder's timestamps after its own clock +
// 2 x HandoffSkew - min(safety margin, ReleaseHold): with the defaults
// (HandoffSkew 1s) that is no wait, and holders whose clocks differ by up
// to HandoffSkew never repeat each other's timestamps. The price is that a
// released ID is free again only 3-3.5s later (etcd deletes an expired
// lease's keys on its next 500ms revoke tick): a rolling deploy's next
// process takes another ID meanwhile, or waits for its retry. A negative
// ReleaseHold deletes the key at once, and every acquisition then waits
// about 2 x HandoffSkew before its first timestamp. The guard trusts the
// hold the new holder's strategy reports, so every process sharing a
// prefix must release alike.
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
package etcdlease
