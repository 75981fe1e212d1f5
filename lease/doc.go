// Package lease keeps nonce factories generating only while their process
// provably owns its machine ID (0..511), by holding the ID as a lease from
// a coordinator the application already runs, or by taking it from the
// platform. When ownership is in doubt, generation stops: availability is
// traded for uniqueness.
//
// Make the factories with nonce.New (a factory that is not Fixed generates
// nothing until a manager activates it), pick a strategy and start a
// [Manager]:
//
//	strategy, err := sqllease.New(db, sqllease.Options{})
//	...
//	m, err := lease.Start(ctx, strategy, lease.Options{
//		Factories: []*nonce.Factory{ids},
//		StateFile: cmp.Or(os.Getenv("ONCE_STATE_FILE"), "once-lease.json"),
//	})
//	if err != nil { ... } // ErrTimeout: no machine ID within AcquireTimeout; ErrConfig: fix the setup
//	defer m.Close(context.Background())
//
// [Start] blocks until a machine ID is held. Its context bounds the start
// only: the manager then renews the lease in the background until
// [Manager.Close], replaces a lost lease on its own (the factories stop
// meanwhile), and reports a final loss through [Manager.Done] and
// [Manager.Err]. Options.StateFile lets a process restarted in the same
// place take its own unexpired lease back, so crash loops do not drain the
// pool. Shut down in this order: finish the work in flight, Close the
// manager, close the coordinator's client.
//
// Strategies, each in a package of its own:
//
//   - lease/sqllease: a table in the application's PostgreSQL, MySQL/MariaDB
//     or SQLite database (the usual choice);
//   - lease/redislease: Redis or Valkey, hash or key mode;
//   - lease/etcdlease: etcd (a module of its own);
//   - lease/k8slease: Kubernetes Lease objects (a module of its own);
//   - lease/envlease and lease/hostlease: a fixed ID from an environment
//     variable (a StatefulSet ordinal) or a host list, optionally held in
//     a coordinator as well by lease/guardlease.
//
// The manager reports the end of its life through [Manager.Done] and
// [Manager.Err], every step (each new lease, renewal, retry, loss, release
// and count of free IDs) as an [Event] to Options.Events, and the same as
// text to Options.Logger (log/slog); lease/otellease turns the events into
// OpenTelemetry metrics.
//
// Writing a strategy: package lease/driver holds the contract, and
// lease/leasetest checks a strategy against it and offers an in-memory
// coordinator for tests.
//
// Choosing a coordinator, timing and crash loops are in docs/leases.md, what
// is checked and what is assumed in docs/safety.md, and how the manager
// works inside in ARCHITECTURE.md, all in the repository
// (https://github.com/once-go/once).
package lease
