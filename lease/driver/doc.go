// Package driver is the contract between the lease manager and the
// strategies that hand out machine-ID leases, as database/sql/driver is
// between database/sql and its drivers. It is for strategy authors: a
// strategy implements [Strategy] (and, where its coordinator allows,
// [Reclaimer], [Claimer], [Lister] and [DurationDefaulter]), hands out
// [Lease] values and classifies its errors with this package's sentinels.
//
// Applications use package lease (github.com/once-go/once/lease): they
// pick a strategy from a package of its own (sqllease, redislease,
// etcdlease, k8slease, envlease, hostlease, guardlease) and pass it to
// lease.Start. Matching a manager's errors needs only lease's sentinels:
// lease.ErrLost and lease.ErrConfig are [ErrLost] and [ErrConfig].
//
// Run the conformance suite, [github.com/once-go/once/lease/leasetest.Run],
// from a strategy's tests to check it against this contract.
package driver
