// Package hostlease is a deterministic [lease.Strategy] for a fixed fleet:
// the machine ID is the index of this host in a list of hostnames and IP
// addresses, sorted and normalised (hostnames lower-cased without a
// trailing dot, addresses in canonical form).
//
// This host matches an entry by its hostname (os.Hostname) or by one of its
// interface addresses. Loopback and link-local addresses, and the name
// "localhost", never match: every host has them. The list must hold at most
// 512 entries, no entry twice (after normalisation), and exactly one entry
// for this host; otherwise Acquire fails with [lease.ErrConfig].
//
// Every host must be given the same list: the index is only unique if all
// hosts count in the same list.
package hostlease
