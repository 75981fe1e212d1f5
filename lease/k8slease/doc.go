// Package k8slease leases machine IDs (0..511) from a Kubernetes API
// server, as coordination.k8s.io/v1 Lease objects, for applications that
// run in a cluster and have no SQL database, Redis or etcd to coordinate
// through, or whose platform team wants coordination to live in the
// cluster. A Deployment's pods get distinct machine IDs this way (a
// StatefulSet's can use its ordinals instead: lease/envlease). It
// implements [github.com/once-go/once/lease.Strategy],
// [github.com/once-go/once/lease.Reclaimer] (Options.StateFile),
// [github.com/once-go/once/lease.Lister] and
// [github.com/once-go/once/lease.Claimer].
//
// It is a Go module of its own, so that client-go is required only by
// applications that use it.
//
//	s, err := k8slease.Open("", k8slease.Options{}) // in-cluster; or a kubeconfig path
//	m, err := lease.Start(ctx, s, lease.Options{
//		Factories:      []lease.Factory{f},
//		LeaseDuration:  k8slease.LeaseDuration, // 1m: see below
//		RenewInterval:  k8slease.RenewInterval,
//		AcquireTimeout: k8slease.AcquireTimeout,
//		StateFile:      "/run/once/lease", // an emptyDir: a restarted container keeps its ID
//	})
//
// # Layout
//
// One Lease per machine ID, named "<prefix>-<id>" (default prefix
// "once-leases": "once-leases-17"), in one namespace, labelled
// once-go.github.io/pool=<prefix> and app.kubernetes.io/managed-by=once.
// Its spec.holderIdentity is the holder (Options.Holder, by default the
// pod's name and the process ID) and a random token: "web-7c9f-x2k/1/<token>".
// That whole string is the lease's Token; Renew, Reclaim and Release act
// only on a Lease whose holderIdentity equals it. spec.leaseDurationSeconds
// is the duration asked for, rounded up to whole seconds; renewTime and
// acquireTime are the holder's clock (for people reading the object: no
// decision uses them); leaseTransitions counts takeovers.
//
//   - Acquire lists the pool's Leases and claims a free ID: a missing
//     Lease with Create (409 AlreadyExists: a contender was first), a
//     released or expired one with an Update carrying the resourceVersion
//     it read (409 Conflict: a contender, or the holder renewing, was
//     first). After lost races it looks again, until it wins an ID or a
//     consistent read sees every ID held: [lease.ErrExhausted] (ctx
//     ending first: [lease.ErrConflict]).
//   - Renew reads the Lease and, if it still holds the token, updates it
//     with the resourceVersion read (a 409 makes it read again).
//   - Release clears the holder (the ID is free at once) the same way; the
//     lease manager has stopped the factories before it releases.
//   - Reclaim (after a restart, from lease.Options.StateFile) renews the
//     Lease under a new token the same way: a copied state file is used at
//     most once.
//
// k8slease never deletes a Lease, and sets no ownerReference: garbage
// collection would free the ID of a pod that is still terminating (and
// still generating). Remove a pool with
// kubectl delete leases -l once-go.github.io/pool=<prefix> once no
// process uses it.
//
// # Expiry: the local clock only
//
// The API server has no lease clock: a Lease is only a record. Following
// client-go's leader election (and its lessons: timestamps in the record
// are for debugging, client-go #448; use the recorded duration, not your
// own, kubernetes #47671), a Strategy judges expiry by its own monotonic
// clock: a held Lease is expired when its record (its resourceVersion) has
// not changed for the recorded leaseDurationSeconds since this Strategy
// first read that version. The holder sent its last write before that
// version existed, and counts its own TTL from the send, so its factories
// stopped (a safety margin before the TTL) before anyone can take the ID
// over; and the takeover's update names the version timed, so a renewal
// that lands first makes it fail with 409. No two clocks are compared.
//
// The price: a holder that dies without releasing (SIGKILL, OOM kill, node
// loss) keeps its ID until a contender has watched its record for the
// whole duration; a fresh process cannot know sooner. A Strategy remembers
// what it saw between calls, and with every ID held [Strategy.Acquire]'s
// ErrExhausted says when the first record will have been watched long
// enough. So use a short lease on Kubernetes: [LeaseDuration] (1 minute),
// [RenewInterval] (30s) and [AcquireTimeout] (2 minutes) for
// lease.Options, instead of the manager's 8 hours; and a StateFile on an
// emptyDir volume, so that a container restarting in its pod takes its own
// lease back at once ([Strategy.Reclaim]) rather than leaving it to
// expire.
//
// Acquire and List read the pool from the API server's watch cache
// (resourceVersion "0": a few milliseconds behind at most, and far cheaper
// than a read from etcd; a stale view costs a 409, every write being
// conditional); an Acquire that finds every ID held confirms it with a
// consistent read. A Strategy reuses the free IDs of a view for a second,
// so a process that acquires many IDs lists the pool about once a second.
//
// # Hand-offs
//
// The API server reports no clock reading and fences nothing, so the
// evidence for the hand-off guard comes from the holders: the annotation
// once-go.github.io/timestamps-before bounds every timestamp any holder of
// the ID may have emitted. Each write raises it to the writer's wall clock
// when it sent the write plus the duration (the factories stop before the
// duration has passed since an earlier moment); the holder's own release
// lowers it to the release time, but never below
// once-go.github.io/predecessors-before, the bound the holder found when it
// took the ID over (its own factories start above that, so a holder whose
// clock is behind does not hide a faster predecessor's timestamps). A
// release by another process (once lease free --force for a holder that is
// gone) keeps it: only the holder's own clock bounds its timestamps, so
// the next holder starts after the evidence, at most a lease duration
// after the gone holder's last renewal. A process taking over reports the bound as
// [lease.Lease].PrevExpiry, and the lease manager starts the new holder's
// timestamps after it plus Options.HandoffSkew. As each holder writes the
// bound in its own clock, no clock needs to agree with another for it (the
// skew is a margin on top). A Lease without the annotation (another writer) leaves
// PrevExpiry zero: the manager then starts after its own clock plus twice
// the skew, which holds for clocks within the skew of each other. A Lease
// created anew was never held: PrevExpiry is 1970, no wait. (Deleting a
// Lease by hand less than twice HandoffSkew after its holder stopped,
// then letting another process create it, defeats the guard; the RBAC
// rules below grant no delete.)
//
// # Errors
//
// 403 Forbidden is [lease.ErrConfig], naming the verb and the resource to
// grant; so are 401 (credentials), 400 and 422 (refused requests) and a
// 404 from create or list (no such namespace, or no coordination.k8s.io/v1).
// Timeouts, 429 (API priority and fairness), 5xx, connection errors and
// ended contexts are [lease.ErrRetry]: their outcome is unknown. A Lease
// gone, released or held by another identity when renewing is
// [lease.ErrLost]. Every request is bounded by Options.RequestTimeout as
// well as by its context.
//
// # RBAC
//
// The pod's service account needs, in the Leases' namespace:
//
//	rules:
//	- apiGroups: ["coordination.k8s.io"]
//	  resources: ["leases"]
//	  verbs: ["get", "list", "watch", "create", "update", "patch"]
//
// (k8slease uses get, list, create and update; watch and patch are for
// tools that follow the pool.) examples/kubernetes has the whole manifest.
//
// # Guarantees
//
// No two holders with a correct lease manager hold one machine ID at once,
// whatever the clocks say, as long as each process's monotonic clock runs
// at the rate of real time (within the manager's safety margin over a
// lease) and the API server's storage is linearizable (etcd). The
// hand-off guard holds for any clock offsets between processes, as long as
// no wall clock is stepped by more than HandoffSkew while its process
// holds an ID. A Lease edited or deleted by hand voids both.
package k8slease
