// Package hostlease is a deterministic [driver.Strategy] for a fixed fleet:
// the machine ID comes from this host's entry in a list of hostnames and IP
// addresses (hostnames compared lower-cased without a trailing dot,
// addresses in canonical form).
//
// # The list
//
// Give every host its machine ID, as host=ID entries:
//
//	web-1.example=0
//	web-2.example=1
//	10.0.0.7=2
//
// IDs are 0..511, each given once, and each host is listed once; a list
// that breaks a rule is refused with [driver.ErrConfig] naming the entry.
// Adding or removing an entry changes no other host's ID.
//
// A list of plain entries ("web-1.example", with no "=") numbers the hosts
// by their place in the sorted list. That is safe only while the list
// never changes on a running fleet: inserting a host shifts every host
// sorted after it. Adding app-b to [app-a, app-c] gives app-b the ID 1,
// which app-c holds until it restarts with the new list, so during a
// rolling change two hosts generate with one machine ID. A list that mixes
// host=ID entries with plain ones is refused.
//
// # Changing the list
//
// Hosts read the list when they start, so during a rolling change some run
// with the old list and some with the new one. No two hosts share an ID as
// long as no ID changes hands within one change:
//
//   - Add a host with an ID that no entry of the old list has.
//   - Remove a host by deleting its entry; give its ID to another host
//     only in a later change, once the removed host has stopped.
//   - Move a host to another ID as a removal and an addition: a new,
//     unused ID now; its old ID is free for reuse once the host has
//     restarted with the new list.
//   - Switch a plain list to host=ID entries by writing each host's
//     current ID (its index in the sorted plain list) first; that change
//     moves no host, and later changes follow the rules above.
//
// Nothing here checks that two processes do not run with one ID (two hosts
// with one name, a list edited against these rules): lease/guardlease
// holds the ID as a lease in a coordinator as well, and refuses a second
// holder.
//
// # Matching this host
//
// This host matches an entry by its hostname (os.Hostname) or by one of its
// interface addresses. Loopback and link-local addresses, and the name
// "localhost", never match: every host has them. The list must hold at most
// 512 entries and exactly one entry for this host; otherwise Acquire fails
// with [driver.ErrConfig]. Every host must be given the same list (apart
// from a change being rolled out as described above).
package hostlease
