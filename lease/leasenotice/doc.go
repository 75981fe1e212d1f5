// Package leasenotice turns a lease manager's events into lease
// notices in the style of the etcd3 client's Lease (acquired, keep-alive
// fired, succeeded and failed, lost, released) and fans them out to
// subscribers without ever blocking the manager.
//
//	feed := leasenotice.NewFeed()
//	defer feed.Close()
//	sub := feed.Subscribe(0)
//	m, err := lease.Start(ctx, s, lease.Options{Factories: fs, Events: feed.Hook})
//	...
//	for n := range sub.C() { log.Info("lease", "notice", n) }
//
// It is built only on [lease.Event]; a program that needs only to hear of
// acquisitions and losses uses Options.OnAcquired and Options.OnLost.
package leasenotice
