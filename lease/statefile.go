package lease

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// stateFile persists the lease a manager holds (Options.StateFile) so that
// the process can reclaim it after a restart. The file stays open and
// exclusively locked while the manager runs; the lock dies with the
// process, so a crashed holder's file is free for its successor while a
// second live manager is refused. A nil *stateFile does nothing.
//
// A record names the host and boot that wrote it, the file its writer
// held locked and the writer's process. It is reclaimed only when that
// proves the writer stopped (see judge): a copy of a live holder's file at
// another path, whose lock no one holds, is not, and neither is a file
// copied to another machine or restored after a reboot.
type stateFile struct {
	f    *os.File
	path string
	file fileID // of f, which this manager holds locked
	host incarnation
	prev stateRecord // the record load returned
}

// stateRecord is the file's content. Token is []byte so that JSON keeps any
// bytes an opaque token holds (base64).
type stateRecord struct {
	Strategy  string `json:"strategy"`
	MachineID int    `json:"machine_id"`
	Token     []byte `json:"token"`
	Host      string `json:"host"`
	BootID    string `json:"boot_id"`
	// File is the file its writer held locked, Proc the writer.
	File fileID `json:"file,omitzero"`
	Proc procID `json:"process,omitzero"`
	// Boot (ns since boot) and Wall were read one after the other, in
	// that order, once the factories ran on the lease: see clockBound.
	Boot int64     `json:"boot_ns,omitempty"`
	Wall time.Time `json:"wall,omitzero"`
}

// incarnation identifies this host, boot and process.
type incarnation struct {
	host, boot string
	proc       procID
}

// thisIncarnation reads the host name and, where the system has them, the
// boot ID (Linux: /proc/sys/kernel/random/boot_id; elsewhere empty, and
// no record is reclaimed) and this process's identity.
func thisIncarnation() incarnation {
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return incarnation{host: host, boot: strings.TrimSpace(string(boot)), proc: thisProcess()}
}

func openStateFile(path string) (*stateFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, configError("StateFile: %v (give it a writable path on storage of this instance's own, e.g. a volume that survives its restarts)", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, configError("StateFile %q is in use by another live manager (%v): give each process its own file", path, err)
	}
	return &stateFile{f: f, path: path, file: fileIdentity(f), host: thisIncarnation()}, nil
}

// load returns the lease recorded for strategy, if its writer provably
// stopped; it logs why a recorded lease is not reclaimed.
func (sf *stateFile) load(strategy string, log *slog.Logger) (driver.Lease, bool) {
	if sf == nil {
		return driver.Lease{}, false
	}
	b, err := io.ReadAll(io.NewSectionReader(sf.f, 0, 1<<16))
	if err != nil {
		return driver.Lease{}, false
	}
	var r stateRecord
	switch {
	case json.Unmarshal(bytes.TrimRight(b, " "), &r) != nil,
		r.Strategy != strategy, len(r.Token) == 0, !leasekit.ValidID(r.MachineID):
		return driver.Lease{}, false
	}
	v := judge(r, sf.host, sf.file, probeProcess)
	switch {
	case v.alive:
		log.Warn("lease state file records a lease its writer may still hold: acquiring another machine ID (give each process its own StateFile)",
			"path", sf.path, "machine_id", r.MachineID, "reason", v.why)
		return driver.Lease{}, false
	case !v.reclaim:
		log.Info("lease state file not reclaimed: acquiring another machine ID",
			"path", sf.path, "machine_id", r.MachineID, "reason", v.why)
		return driver.Lease{}, false
	}
	log.Info("lease state file reclaimable", "path", sf.path, "machine_id", r.MachineID, "reason", v.why)
	sf.prev = r
	return driver.Lease{MachineID: r.MachineID, Token: string(r.Token)}, true
}

// clockBound bounds the timestamps of the previous incarnation that wrote
// the record load returned, from this boot's clocks; zero when it cannot
// (no boot ID or boot clock, an older record).
//
// That incarnation ran on this host and boot. Its factories' clock was the
// wall clock when they were activated, carried on by the monotonic clock
// (see nonce.Factory.Activate), and the record was written after that
// activation with the boot clock read first, then the wall clock. The
// monotonic clock never runs ahead of the boot clock (they differ by the
// time suspended), so every timestamp the incarnation emitted is at most
// the recorded wall reading plus the boot time that has passed since, and
// below that plus a millisecond (timestamps count whole milliseconds): the
// bound returned. It holds whatever the wall clock did meanwhile: a step back shows as
// a bound ahead of the wall clock, and the first timestamp waits for it.
// It assumes the factories read the system clock (nonce.Config.Now unset)
// and that both incarnations see one boot clock (no time namespace
// offsets between them).
func (sf *stateFile) clockBound() time.Time {
	if sf == nil || sf.host.boot == "" || sf.prev.Wall.IsZero() {
		return time.Time{}
	}
	now, ok := bootClock()
	if !ok || now < time.Duration(sf.prev.Boot) {
		return time.Time{}
	}
	return sf.prev.Wall.Add(now - time.Duration(sf.prev.Boot) + time.Millisecond)
}

// store records l as held under strategy. The record overwrites the old
// one in a single write, padded with spaces to the file's size, so that a
// process that dies at any point leaves one whole record, old or new.
func (sf *stateFile) store(strategy string, l driver.Lease) error {
	if sf == nil {
		return nil
	}
	r := stateRecord{Strategy: strategy, MachineID: l.MachineID, Token: []byte(l.Token), Host: sf.host.host, BootID: sf.host.boot,
		File: sf.file, Proc: sf.host.proc}
	if boot, ok := bootClock(); ok {
		r.Boot, r.Wall = int64(boot), time.Now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return sf.write(b)
}

// clear forgets the recorded lease.
func (sf *stateFile) clear() error {
	if sf == nil {
		return nil
	}
	return sf.write(nil)
}

// write replaces the file's content with b in one write, padding with
// spaces over whatever was longer.
func (sf *stateFile) write(b []byte) error {
	fi, err := sf.f.Stat()
	if err != nil {
		return err
	}
	if n := int(fi.Size()) - len(b); n > 0 {
		b = append(b, bytes.Repeat([]byte(" "), n)...)
	}
	if _, err := sf.f.WriteAt(b, 0); err != nil {
		return err
	}
	return sf.f.Sync()
}

// close unlocks and closes the file.
func (sf *stateFile) close() error {
	if sf == nil {
		return nil
	}
	return sf.f.Close()
}
