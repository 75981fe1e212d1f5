package lease

import "fmt"

// The writer of a state file record, and whether it provably no longer
// runs: only then is its lease reclaimed.
//
// A copy of a state file (cp -r app app2, an rsync to a second path, a
// blue/green deploy on one host) carries the live holder's machine ID and
// token to a second path whose lock no one holds. Reclaiming from it
// would give two running processes one machine ID until the earlier
// one's next renewal, so a record is reclaimed only on proof that its
// writer has stopped, of one of two kinds:
//
//   - The file is the one the writer held locked: the record names the
//     device and inode of the file its writer locked, and this manager
//     holds the lock of that very file now. The writer kept the lock
//     while its manager ran, and its open file keeps that device and
//     inode from naming any other file, so a copy never matches. This is
//     the crash restart in place, also across containers sharing a
//     volume (a restarted container has a new PID namespace).
//   - The writer's process has exited: the record names its PID, start
//     time (/proc/PID/stat) and PID and time namespaces; in the same
//     namespaces, a PID that no process has, or that a zombie or a
//     process started at another time has, proves it.
//
// Anything else (another host or boot, no boot ID, a record without the
// writer's identity from an older version, another PID namespace, a /proc
// that does not show this process's own namespace, a writer that still
// runs or that this process cannot see) is not reclaimed: the manager
// acquires a new machine ID instead. That is always safe, and costs at
// most one machine ID held until its lease runs out when the writer had
// in fact stopped. Refusing to start would break a copied deploy that can
// run safely, and waiting for a writer that may serve for months would
// stall it.

// fileID identifies a file: its device and inode. Inode 0 means unknown.
type fileID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// procID identifies a process of one boot. PID 0 means unknown.
type procID struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`  // clock ticks from boot to its start, field 22 of /proc/PID/stat
	PIDNS uint64 `json:"pid_ns"` // inode of /proc/PID/ns/pid
	// TimeNS is the inode of /proc/PID/ns/time, 0 on a kernel without
	// time namespaces; start times read in different time namespaces
	// differ by their offsets.
	TimeNS uint64 `json:"time_ns,omitempty"`
}

// liveness is what a probe learns of a PID in this PID namespace.
type liveness int

const (
	unknown liveness = iota // cannot tell: no /proc, or the process is hidden
	gone                    // no process has the PID, or its process has exited (a zombie)
	running                 // a process runs with the PID; the probe returns its start
)

// probe reports on a PID of this PID namespace.
type probe func(pid int) (liveness, uint64)

// verdict is the judgment of a state file record.
type verdict struct {
	reclaim bool
	alive   bool // the writer still runs: the file is a copy of a live holder's
	why     string
}

// judge decides whether the lease in record r may be reclaimed by this
// incarnation self, holding the lock of the file f; p probes a PID.
func judge(r stateRecord, self incarnation, f fileID, p probe) verdict {
	no := func(format string, args ...any) verdict { return verdict{why: fmt.Sprintf(format, args...)} }
	switch {
	case r.Host != self.host:
		return no("written on host %.64q", r.Host)
	case self.boot == "":
		return no("this system has no boot ID, so nothing proves that the writer stopped")
	case r.BootID != self.boot:
		return no("written before a reboot, or on another machine cloned from this one")
	case r.File.Ino != 0 && r.File == f:
		// Not a copy: the file its writer held locked, whose lock this
		// manager holds now.
		return verdict{reclaim: true, why: "its writer's lock on this file is free: the writer stopped"}
	}
	// A copy (or a record that names no file): judge its writer's process.
	switch {
	case r.Proc.PID <= 0:
		return no("a copy, or an older version's record, naming no writer process")
	case self.proc.PID <= 0:
		return no("a copy, and /proc does not identify this process")
	case r.Proc.PIDNS != self.proc.PIDNS || r.Proc.TimeNS != self.proc.TimeNS:
		return no("a copy written in another PID or time namespace (another container?)")
	}
	switch state, start := p(r.Proc.PID); {
	case state == gone:
		return verdict{reclaim: true, why: fmt.Sprintf("a copy whose writer, PID %d, has exited", r.Proc.PID)}
	case state == running && start != r.Proc.Start:
		return verdict{reclaim: true, why: fmt.Sprintf("a copy whose writer, PID %d, has exited (the PID is another process's now)", r.Proc.PID)}
	case state == running:
		return verdict{alive: true, why: fmt.Sprintf("a copy whose writer, PID %d, still runs", r.Proc.PID)}
	}
	return no("a copy whose writer, PID %d, this process cannot see: it may still run", r.Proc.PID)
}
