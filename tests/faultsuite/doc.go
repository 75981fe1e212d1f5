// Package faultsuite is the lease fault suite of issues 4 and 5
// (partitions, hung renewals, lost replies, coordinator restarts and data
// loss, killed, suspended and crash-looping holder processes, 600
// contenders, hand-off with skewed clocks), run against every coordinator
// through one table of coordinators. It is a package of test code: a test
// package calls Main from its TestMain with its table and one test function
// per case (suite_test.go here runs it on Builtin, the SQL and Redis
// coordinators; the etcdlease module's test runs it on etcd, whose client
// the root module does not require). See README.md in this directory for
// the design, the coordinator x fault table and how to add a coordinator.
package faultsuite
