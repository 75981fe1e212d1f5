package lease

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// thisProcess identifies this process from /proc; zero when /proc cannot:
// not mounted, or mounted for another PID namespace (its "self" is then
// not this process's PID).
func thisProcess() procID {
	pid := os.Getpid()
	if self, err := os.Readlink("/proc/self"); err != nil || self != strconv.Itoa(pid) {
		return procID{}
	}
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return procID{}
	}
	statPID, _, _, start, ok := parseStat(b)
	pidNS := nsInode("pid")
	if !ok || statPID != pid || pidNS == 0 {
		return procID{}
	}
	return procID{PID: pid, Start: start, PIDNS: pidNS, TimeNS: nsInode("time")}
}

// nsInode returns the inode of this process's namespace of the given
// kind, 0 if it has none or cannot be read.
func nsInode(kind string) uint64 {
	fi, err := os.Stat("/proc/self/ns/" + kind)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// probeProcess reports on pid in this PID namespace. kill(pid, 0) tells
// whether a process has the PID, even one that /proc hides (hidepid);
// /proc/PID/stat tells its state and start time.
func probeProcess(pid int) (liveness, uint64) {
	if pid <= 0 {
		return unknown, 0 // kill would address a process group
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return gone, 0
	} else if err != nil && !errors.Is(err, syscall.EPERM) {
		return unknown, 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return unknown, 0 // hidden, or it exited just now
	}
	return statLiveness(pid, b)
}

// statLiveness reads what /proc/PID/stat content b says of pid.
func statLiveness(pid int, b []byte) (liveness, uint64) {
	statPID, state, threads, start, ok := parseStat(b)
	switch {
	case !ok || statPID != pid:
		return unknown, 0
	case state == 'X', state == 'Z' && threads <= 1:
		// Exited, not yet reaped. A zombie thread group leader whose
		// other threads still run counts them.
		return gone, 0
	}
	return running, start
}

// parseStat reads the PID (field 1), state (3), number of threads (20)
// and start time (22) of a /proc/PID/stat line. Field 2 is the command
// name in parentheses, which may itself hold spaces and parentheses: the
// fields after it follow the last ')'.
func parseStat(b []byte) (pid int, state byte, threads int, start uint64, ok bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return 0, 0, 0, 0, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return 0, 0, 0, 0, false
	}
	f := bytes.Fields(b[end+1:]) // f[0] is field 3
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, 0, 0, false
	}
	threads, err = strconv.Atoi(string(f[17]))
	if err != nil {
		return 0, 0, 0, 0, false
	}
	if start, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return 0, 0, 0, 0, false
	}
	return pid, f[0][0], threads, start, true
}
