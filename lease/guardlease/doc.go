// Package guardlease guards a fixed machine ID: it holds the ID that an
// environment variable or a host list designates (lease/envlease,
// lease/hostlease) as a lease in a coordinator the application already
// runs (its SQL database, Redis, etcd), so that a second process
// configured with the same ID is refused instead of generating duplicate
// IDs beside the first. The guard is optional: a fixed strategy alone
// trusts the platform never to run two processes with one ID; a
// StatefulSet can break that promise for a while (a pod on a partitioned
// node that is still running when its replacement starts, a copied
// manifest, an ordinal offset shared by two sets).
//
//	fixed := envlease.New("POD_NAME", 0)
//	coord, _ := sqllease.New(db, sqllease.Options{})
//	s, _ := guardlease.New(fixed, coord, "PostgreSQL table once_leases")
//	m, err := lease.Start(ctx, s, lease.Options{
//		Factories:      []*nonce.Factory{f},
//		LeaseDuration:  time.Minute,      // the guard's lease: keep it short
//		RenewInterval:  20 * time.Second,
//		AcquireTimeout: 2 * time.Minute,  // above LeaseDuration + the release hold
//	})
//
// # What it does
//
// Acquire reads the fixed strategy's machine ID, then claims exactly that
// ID from the coordinator ([driver.Claimer]) under the same atomic
// conditions as the coordinator's own Acquire. When the ID is held by
// someone else the claim fails with an error naming the ID and the
// coordinator, matching [driver.ErrConflict]; lease.Start retries it
// until lease.Options.AcquireTimeout and then fails with it (and
// lease.ErrTimeout). An unreachable coordinator is [driver.ErrRetry]:
// retried the same way, so Start fails if it stays unreachable. Renew and
// Release act on the coordinator's lease, and the coordinator's TTL is the
// lease's: while running, the guard is renewed, retried and lost like any
// lease, and a loss (the ID taken by another process, the safe window run
// out while the coordinator is unreachable) disables the factories. The
// strategy stays deterministic, as the fixed one is, so after such a loss
// the manager does not acquire again (see
// lease.Options.ReacquireDeterministic): Done is closed and Err says why.
//
// # Lease duration: how long a replacement waits
//
// The guard's lease is lease.Options.LeaseDuration. Keep it short (1 min,
// with RenewInterval 20 s) rather than the 8 h default: a pod restarted
// with the same ordinal after its predecessor crashed finds the guard
// still held and waits, retrying, until it lapses, that is up to
// LeaseDuration after the predecessor's last renewal; after a clean
// shutdown the predecessor released the guard, and the wait is the
// coordinator's release hold (SQL none, Redis 1 s, etcd 3 s by default).
// Set AcquireTimeout above LeaseDuration plus that hold, or Start gives up
// first. The wait cannot be skipped: the coordinator cannot tell a crashed
// predecessor from one that is cut off from it but alive, and such a
// predecessor keeps generating until its own safe window (its lease minus
// driver.SafetyMargin) ends, which is before the coordinator lets the lease
// lapse. Only then is the ID provably free.
package guardlease
