// Package otellease bridges a lease manager's events to OpenTelemetry
// metrics (go.opentelemetry.io/otel/metric), so lease health shows on
// dashboards without glue code:
//
//	name                     kind     unit       attributes
//	once.lease.held          gauge    {lease}    strategy, machine_id (while held)
//	once.lease.renewals      counter  {renewal}  strategy, result
//	once.lease.retries       counter  {retry}    strategy, operation
//	once.lease.losses        counter  {loss}     strategy, reason
//	once.lease.time_to_expiry gauge   s          strategy, machine_id (while held)
//	once.lease.free_ids      gauge    {id}       strategy
//
// strategy is whatever [New] was given (AttrStrategy.String(s.Name())),
// like any other attribute passed to it. held is 1 while a lease is held
// (then with its machine_id) and 0 when none is. renewals counts finished
// renewal calls by result: "ok", or the class of the event's error
// ("retry", "lost", "timeout", "illegal_ttl", "canceled" when the manager
// stopped, ...). retries counts the pauses before another attempt, by
// operation ("renew", "acquire"). losses counts leases lost, by reason
// ("lost": the coordinator said so, "expired", "timeout", "external",
// "illegal_ttl"). time_to_expiry is how long the factories may still
// generate unless a renewal succeeds: the end of the lease's safe window
// (the granted TTL minus the manager's 10 s margin, from when the request
// was sent) on the local clock, minus now, at collection time (0 when no
// lease is held). free_ids is how many of the 512 machine IDs the
// coordinator did not list as held at the last acquire or renewal (the
// manager's [github.com/once-go/once/lease.EventPool]); it is reported
// once the first count has succeeded, and only for strategies that can
// list the IDs held ([github.com/once-go/once/lease/driver.Lister]).
// Alert on it well before 0: with no free ID left, a new process cannot
// start (the manager also logs a warning below Options.LowFreeIDs, 64 by
// default).
//
// Install [Bridge.Hook] as the manager's event hook (or call it from
// yours). It only updates counters and a few fields under a mutex, never
// blocks the manager, and nothing is recorded on the nonce generation
// path. The gauges are observed when the metrics are collected.
package otellease
