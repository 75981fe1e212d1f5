package supervise

import (
	"fmt"
	"os"
	"time"
)

// Print prints "machine_id=N" for each lease w shows once a value with its
// machine ID may be emitted, until a signal, the end of hold (hold > 0,
// counted from the first line) or the end of the manager m.
func Print(e IO, w *Watch, m Lease, sigs <-chan os.Signal, hold time.Duration) {
	var until wake // runs from the first machine_id line
	defer func() { until.stop() }()
	printed := 0 // the lease last printed (View.seq)
	for {
		v, changed := w.view()
		now := time.Now()
		pending := v.seq != printed && v.active && now.Before(v.validUntil)
		if pending && v.readyIn(now) == 0 {
			fmt.Fprintf(e.Stdout, "machine_id=%d\n", v.machineID)
			if f, ok := e.Stdout.(interface{ Flush() error }); ok {
				f.Flush()
			}
			if printed == 0 {
				until = newWake(hold > 0, now.Add(hold))
			}
			printed = v.seq
			continue
		}
		ready := newWake(pending, now.Add(v.readyIn(now)))
		select {
		case <-changed:
		case <-ready.c:
		case <-sigs:
			ready.stop()
			return
		case <-until.c:
			ready.stop()
			return
		case <-m.Done():
			ready.stop()
			return
		}
		ready.stop()
	}
}
