// Package redislease leases machine IDs (0..511) from Redis or Valkey
// through a go-redis v9 client the application already has (a
// *redis.Client, Sentinel's failover client or a *redis.ClusterClient). It
// implements [driver.Strategy], and the Reclaimer, Claimer and Lister
// capabilities of package driver.
//
//	s, err := redislease.New(rdb, redislease.Options{Mode: redislease.ModeKey})
//	m, err := lease.Start(ctx, s, lease.Options{Factories: []*nonce.Factory{f}})
//
// The mode is explicit ([Options.Mode]) and never switches; each refuses to
// run ([driver.ErrConfig]) when it finds the other's data under the same
// name. [ModeHash] keeps every lease in one hash with per-field TTLs
// (HSETEX: Redis >= 8.0, Valkey >= 9.0), the Elixir library's exact layout:
// pick it when services using that library share the leases (see
// [Options.Sharing]). [ModeKey] keeps one key per lease: pick it on Redis 6
// and 7 and on managed services without HSETEX. Both claim, renew and
// reclaim with small embedded Lua scripts that keep every key in one hash
// slot and read the server's TIME, so both run on Redis Cluster.
//
// A release keeps the ID taken for [Options.ReleaseHold] (default 1s)
// instead of deleting it, so that the lease manager's hand-off guard needs
// no wait: every process sharing a name must release alike.
//
// Uniqueness is refused rather than risked: [Strategy.Check] (run by the
// first call) refuses an eviction policy that could evict held leases,
// a server whose policy cannot be read (unless
// [Options.AcceptUnverifiedEviction]), and a master with more replicas than
// [Options.WaitReplicas] (unless [Options.AcceptReplicaLoss]): with
// WaitReplicas n, a claim or renewal counts only once n replicas
// acknowledged it, so a failover keeps every lease a holder trusts.
//
// Modes, tokens, errors, the release hold, eviction, replicas and Cluster in
// detail: docs/coordinators.md in the repository
// (https://github.com/once-go/once).
package redislease
