// Package redislease leases machine IDs (0..511) from Redis or Valkey
// through a go-redis v9 client the application already has. It implements
// [github.com/once-go/once/lease.Strategy], and the Reclaimer, Claimer and
// Lister capabilities of package lease.
//
// # Choosing a mode
//
// The mode is explicit ([Options.Mode]); there is no automatic choice,
// because two layouts on one server would hand out an ID twice. Each mode
// refuses to run ([lease.ErrConfig]) when it finds the other's data under
// the same NAME.
//
// [ModeHash] keeps every lease in one hash NAME with per-field TTLs (HSETEX
// FNX/FXX PX). Pick it on Redis >= 8.0 or Valkey >= 9.0, and whenever
// services using the Elixir library share the leases: the field layout is
// exactly theirs ("<id>" -> token, "token.<id>.<token>" -> "<id>"). Their
// hash is named [ElixirName] by default, ours [DefaultName]: set
// [Options.Name] to the name the fleet shares (see [Options.Sharing]).
// All leases are visible with one HGETALL.
//
// [ModeKey] keeps one key {NAME}:<id> = token per lease with a key TTL.
// Pick it on Redis 6 and 7 and on managed services without HSETEX.
//
// Both modes acquire, renew and reclaim with small Lua scripts (embedded
// in this package, run with EVALSHA). Each script declares every key it
// touches, all in NAME's hash slot (the key NAME and the {NAME} hash tag
// hash alike), checks for the other mode's data in the same atomic step
// as a claim, and reads the server's TIME on the node that applies the
// write. So both modes run on Redis Cluster (see Replicas, failover and
// Redis Cluster).
//
// # Tokens and holders
//
// A lease's token is 16 random bytes (base64url, 22 characters), then '|'
// and who holds it ([Options.Holder], by default "host/pid"), and it is
// stored whole as the value ("<token>|<holder>"); in hash mode it is also
// part of the second field's name. The whole value is the proof of
// ownership, compared as one string, so the holder costs no extra field or
// key. The Elixir library reads only field names and compares only its
// own tokens, so its acquire, renew and release are unaffected (replayed
// against ours in TestElixirReplay); its own tokens carry no holder.
// [Strategy.List] reports the held IDs with holder, remaining TTL and a
// token that [Strategy.Release] takes.
//
// A claim whose reply is lost may have been applied. go-redis retries
// such a command by itself (its MaxRetries): the scripts recognise a
// replay of their own claim by its token and report it as claimed, and
// any claim that fails is returned beside [lease.ErrRetry] for the lease
// manager to release, unless the server refused it as a configuration
// error (the script never ran).
//
// # Server checks and errors
//
// [Strategy.Check] (run by the first Acquire, Renew or Reclaim, or call it
// at startup) probes the commands the mode needs and the eviction policy,
// and reports an unsupported server as [lease.ErrConfig], never as a
// conflict. At run time a renewal
// the server positively refuses is [lease.ErrLost]; transport errors,
// timeouts, pool exhaustion and server replies such as LOADING, BUSY,
// READONLY, MASTERDOWN, CLUSTERDOWN or TRYAGAIN are [lease.ErrRetry].
//
// TTLs are whole milliseconds applied by the server's clock. Leases carry
// the server's TIME as CoordinatorNow; Redis keeps no record of an expired
// lease, so PrevExpiry is zero (the ID was free at CoordinatorNow, so any
// previous holder's lease had ended by then).
//
// # Release and the hand-off guard
//
// Redis cannot tell a released ID from an expired one. An expired ID is
// safe to hand over at once: its holder stopped generating a safety margin
// (10s) before the expiry. A released one is not, if it were freed at
// once: its holder stopped only just before, and a successor whose clock
// is behind could repeat its timestamps. So Release does not delete a
// lease: it shortens it, token-checked and atomically, to
// [Options.ReleaseHold] (default 1s; hash mode: the renewal's HSETEX with
// PX hold; key mode: the release script's PEXPIRE), and every lease
// reports that hold as lease.Lease.ReleaseHold. The lease manager then
// starts a new holder's timestamps after CoordinatorNow + HandoffSkew -
// min(safety margin, ReleaseHold), which is no wait with the defaults.
// The price is that a released ID is free again only after the hold (a
// rolling deploy's next pod takes another ID meanwhile, or waits for its
// retry). A negative ReleaseHold deletes at once instead, and every
// acquisition then waits about HandoffSkew before its first timestamp.
//
// The guard trusts the hold the new holder's strategy reports, so every
// process sharing NAME must release alike. The Elixir library does not: it
// deletes on release (HSETEX FXX PX 0). On a hash shared with it
// ([Options.Sharing]; by default a hash named [ElixirName]) leases report
// a ReleaseHold of 0, and the manager starts a new holder's timestamps
// after the server's clock + HandoffSkew, so an Elixir holder whose clock
// ran ahead by up to HandoffSkew is never repeated; every acquisition's
// first value then waits about HandoffSkew (this package's own releases
// still hold the ID). A fleet of this package alone keeps the hand-off
// without a wait.
//
// # Data loss and eviction
//
// Data loss on the server (FLUSHALL, a failover to a replica that missed
// the latest writes, a restart without persistence, eviction under
// maxmemory) frees IDs at once: another process may acquire an ID that is
// still in use until the holder's next renewal reports [lease.ErrLost]. Run
// Redis with persistence and keep renewal intervals short when that
// window matters. Failovers are covered in the next section.
//
// Eviction is refused rather than risked. The strategy reads maxmemory and
// maxmemory_policy from INFO memory (CONFIG is disabled on several managed
// services; INFO rarely is; on Redis Cluster from every primary) at Check
// and again on every Acquire, Renew and Reclaim, and accepts maxmemory 0,
// the policy noeviction and, in hash mode only, the volatile-* policies
// (they evict only keys with a TTL of their own; the hash NAME has none,
// its fields expire: tested on Redis 8 and Valkey 9). Any other policy is
// [lease.ErrConfig] before a lease is held, and [lease.ErrLost] on a
// renewal (a policy changed at run time), so that the lease manager stops
// generation at once. A server that does not report its policy is
// refused too, unless [Options.AcceptUnverifiedEviction] is set.
//
// # Replicas, failover and Redis Cluster
//
// Redis replicates asynchronously, and a failover promotes a replica that
// may have missed the latest writes: a claim it missed frees an ID whose
// holder generates with it, a renewal it missed leaves the lease at its
// earlier expiry. Measured on a real cluster (3 masters, a replica each):
// with the normal replication lag none of 50 leases claimed right before
// the master was killed was lost; with the replica cut off before the
// claim, the claim and a renewal both reported success, both were gone
// after the failover, and another process claimed the same ID.
//
// [Options.WaitReplicas] n makes the strategy trust a claim (Acquire,
// Claim, Reclaim) or a renewal only once n replicas acknowledged it: the
// script is followed by WAIT n [Options.WaitTimeout] on the same
// connection to the master of NAME's slot. A claim acknowledged by fewer
// replicas in time is returned beside [lease.ErrRetry] (the lease manager
// releases it); such a renewal is [lease.ErrRetry] (the manager retries
// while its last acknowledged renewal holds, and stops generating when it
// runs out). With n the number of replicas that a failover may promote
// (all of the master's replicas):
//
//   - A failover keeps every claim and renewal a holder trusts, so no ID
//     is handed out again while its holder generates with it. Tested: with
//     the replica cut off, the claim and the renewal came back as
//     ErrRetry, and after the failover the earlier, acknowledged lease was
//     still held and renewed.
//   - An acknowledgement means the replica received the write, in memory:
//     a replica that restarts without persistence before it is promoted,
//     or a shard that loses its master and replicas together, loses it.
//   - The promoted replica expires leases by its own clock: keep the
//     clocks of masters and replicas within the safety margin (10s).
//   - After a failover, nothing is acknowledged until the new master has n
//     replicas again (the old master rejoins as one when it restarts):
//     renewals fail with ErrRetry, and holders stop generating at the end
//     of their safe window. Availability is traded for uniqueness.
//   - Releases are not waited for: a failover that loses a release only
//     keeps the ID taken until the lease expires.
//
// [Strategy.Check] reads INFO replication on the master of NAME's slot
// and refuses ([lease.ErrConfig]) a master with more connected replicas
// than WaitReplicas, or one whose replicas it cannot read, unless
// [Options.AcceptReplicaLoss] is set; replicas attached later are seen at
// the next start. WaitReplicas needs a *redis.Client (a standalone master,
// Sentinel's failover client) or a *redis.ClusterClient.
//
// On Redis Cluster, build a *redis.ClusterClient with
// ContextTimeoutEnabled and pass it to [New]; a three-master cluster with
// a replica each passes the lease conformance suite and a race of 600
// contenders for the 512 IDs (exactly 512 win, including across a
// failover) with WaitReplicas 1, in key mode on Redis 7 and hash mode on
// Redis 8.
package redislease
