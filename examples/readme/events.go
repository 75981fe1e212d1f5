package main

// readme:begin lease-events
import (
	"log"
	"sync/atomic"

	"github.com/once-go/once/lease"
)

// logLease, as lease.Options.Events, logs each new lease, each renewal
// that failed and will be retried (IDs still come), each loss (no new IDs
// until the next lease) and each release. The manager's Logger reports
// the same and more through log/slog.
func logLease(e lease.Event) {
	switch {
	case e.Kind == lease.EventEnd && (e.Op == lease.OpAcquire || e.Op == lease.OpReclaim) && e.Err == nil:
		log.Printf("once: machine ID %d, lease of %v", e.MachineID, e.TTL)
	case e.Kind == lease.EventRetry && e.Op == lease.OpRenew:
		log.Printf("once: renewal of machine ID %d failed, again in %v: %v", e.MachineID, e.Delay, e.Err)
	case e.Kind == lease.EventLost:
		log.Printf("once: machine ID %d lost, no new IDs until the next lease: %v", e.MachineID, e.Err)
	case e.Kind == lease.EventEnd && e.Op == lease.OpRelease:
		log.Printf("once: machine ID %d released (error: %v)", e.MachineID, e.Err)
	}
}

// feedLease returns an Events hook that hands every event to ch for
// another goroutine, never blocking the manager: an event that does not
// fit is dropped and counted.
func feedLease(ch chan<- lease.Event, dropped *atomic.Int64) func(lease.Event) {
	return func(e lease.Event) {
		select {
		case ch <- e:
		default:
			dropped.Add(1)
		}
	}
}

// readme:end lease-events
