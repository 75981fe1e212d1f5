// Package k8slease leases machine IDs (0..511) from a Kubernetes API
// server, as coordination.k8s.io/v1 Lease objects, so that a Deployment's
// pods get distinct machine IDs without another coordinator (a
// StatefulSet's can use its ordinals instead: lease/envlease). It
// implements [driver.Strategy], [driver.Reclaimer] (lease.Options.StateFile),
// [driver.Lister] and [driver.Claimer]. It is a Go module of its own, so
// that client-go is required only by applications that use it.
//
//	s, err := k8slease.Open("", k8slease.Options{}) // in-cluster; or a kubeconfig path
//	m, err := lease.Start(ctx, s, lease.Options{
//		Factories:      []*nonce.Factory{f},
//		LeaseDuration:  k8slease.LeaseDuration, // 1m: see below
//		RenewInterval:  k8slease.RenewInterval,
//		AcquireTimeout: k8slease.AcquireTimeout,
//		StateFile:      "/run/once/lease", // an emptyDir: a restarted container keeps its ID
//	})
//
// One Lease per machine ID ("once-leases-17") in one namespace: that
// namespace and the prefix are the pool, so workloads writing one database
// must lease from the same namespace. A missing Lease is claimed with
// Create, a released or expired one with an Update carrying the
// resourceVersion read; a 409 is a lost race, so no two holders ever hold
// one ID. k8slease never deletes a Lease and sets no ownerReference.
//
// The API server has no lease clock: a holder counts as dead once a
// contender has seen its record unchanged for the recorded duration, on the
// contender's own monotonic clock (no two clocks are compared). A dead pod's
// ID therefore frees a whole lease after a contender first looks: use the
// short [LeaseDuration], [RenewInterval] and [AcquireTimeout] above, and a
// StateFile on an emptyDir volume. Each holder records a bound on its
// timestamps in an annotation, which guards the hand-off to the next; only
// the holder's own release lowers it, so a release by another process
// (once lease free --force) keeps it. After lost races Acquire looks at the
// pool again, until it wins an ID or a consistent read sees every ID held.
//
// The service account needs, in the Leases' namespace:
//
//	rules:
//	- apiGroups: ["coordination.k8s.io"]
//	  resources: ["leases"]
//	  verbs: ["get", "list", "watch", "create", "update", "patch"]
//
// 403 Forbidden is [driver.ErrConfig], naming the verb and the resource to
// grant. The layout, expiry, hand-offs, errors, RBAC and guarantees in
// detail: docs/coordinators.md and docs/kubernetes.md in the repository
// (https://github.com/once-go/once).
package k8slease
