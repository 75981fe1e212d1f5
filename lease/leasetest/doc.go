// Package leasetest is a conformance suite for [driver.Strategy]
// implementations, in the spirit of testing/fstest.
//
// A strategy calls [Run] from its own tests with a [Harness] that can make a
// fresh, empty coordinator namespace per check:
//
//	func TestConformance(t *testing.T) {
//		leasetest.Run(t, leasetest.Harness{
//			New: func(t *testing.T) func() driver.Strategy {
//				table := uniqueName(t) // a table of this test's own
//				// create the table, register its removal with t.Cleanup ...
//				return func() driver.Strategy {
//					s, err := sqllease.New(db, sqllease.Options{Table: table})
//					if err != nil {
//						t.Fatal(err)
//					}
//					return s
//				}
//			},
//		})
//	}
//
// The suite checks the safety properties the lease manager relies on: no
// machine ID is ever held twice, a lease is not handed to someone else before
// the TTL the strategy reported (counted from when the request was sent) nor,
// once released, before the ReleaseHold it reported (counted from when the
// release was sent), a renewal really extends the lease, a stale renewal is lost and a stale
// release is harmless, renewals can be replayed, errors are classified with
// the sentinels of package driver, and contexts are honoured. It also checks the rules
// of the Strategy contract that keep calls cut off by their context
// harmless: an Acquire cut off at any point reports every claim it may
// have left (so releasing what the aborted Acquires report frees the whole
// namespace again), and a Reclaim replaces the token (the old one renews,
// releases and reclaims nothing). A [driver.Claimer] is checked too, and so
// is a [driver.Lister]: every contender lists the held IDs with the holder
// each recorded (and the key fingerprint each acquisition's context
// carried, driver.KeyFingerprint), a released ID drops out of the list,
// and Release with a listed token frees that holding and no later one.
// With [Harness.Range], a strategy restricted to a range of machine IDs
// (Options.MachineIDs) is checked to take only IDs in it, to report a
// full range as driver.ErrExhausted, and to refuse an empty range. The
// checks of an
// optional capability are skipped for a strategy without it.
//
// [Memory] is a correct in-memory coordinator, handy as a stand-in strategy in
// the tests of code that uses the lease manager.
package leasetest
