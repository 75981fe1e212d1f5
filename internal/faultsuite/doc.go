// Package faultsuite holds no code: its tests are the lease fault suite
// of issues 4 and 5 (partitions, hung renewals, lost replies, coordinator
// restarts and data loss, killed, suspended and crash-looping holder
// processes, 600 contenders, hand-off with skewed clocks), run against
// every coordinator the module supports through one table of
// coordinators. See README.md in this directory for the design, the
// coordinator x fault table and how to add a coordinator.
package faultsuite
