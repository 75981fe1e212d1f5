package lease

import (
	"encoding/json"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestThisProcess: this process's identity names its PID, its PID
// namespace and a start time that the probe confirms.
func TestThisProcess(t *testing.T) {
	p := thisProcess()
	fi, err := os.Stat("/proc/self/ns/pid")
	if err != nil {
		t.Skipf("no PID namespace to compare with: %v", err)
	}
	if p.PID != os.Getpid() || p.PIDNS != fi.Sys().(*syscall.Stat_t).Ino || p.Start == 0 {
		t.Fatalf("thisProcess() = %+v; PID %d, PID namespace inode %d", p, os.Getpid(), fi.Sys().(*syscall.Stat_t).Ino)
	}
	if state, start := probeProcess(p.PID); state != running || start != p.Start {
		t.Errorf("probe of this process: %v, start %d; want running, start %d", state, start, p.Start)
	}
}

// TestProbeProcess follows a real process: running with the start time it
// reads of itself, then killed and not yet reaped (a zombie: gone), then
// reaped (no process has the PID: gone).
func TestProbeProcess(t *testing.T) {
	cmd, _, identity := startProcess(t)
	var self procID
	if err := json.Unmarshal([]byte(identity), &self); err != nil || self.PID != cmd.Process.Pid {
		t.Fatalf("helper's identity %s (%v), PID %d", identity, err, cmd.Process.Pid)
	}
	if state, start := probeProcess(self.PID); state != running || start != self.Start {
		t.Fatalf("probe of a running process: %v, start %d; it says start %d", state, start, self.Start)
	}
	if us := thisProcess(); self.PIDNS != us.PIDNS || self.TimeNS != us.TimeNS || self.Start < us.Start {
		t.Errorf("helper %+v, this process %+v: want one PID and time namespace, the helper started later", self, us)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	zombie := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(self.PID) + "/stat")
		// A SIGKILL makes the thread group leader a zombie before
		// the other threads have exited; until they have, the
		// process still counts as running.
		if _, state, threads, _, ok := parseStat(b); err == nil && ok && state == 'Z' && threads <= 1 {
			zombie = true
			break
		}
	}
	if !zombie {
		t.Fatal("the killed helper did not show as a zombie")
	}
	if state, _ := probeProcess(self.PID); state != gone {
		t.Errorf("probe of a zombie: %v, want gone", state)
	}
	cmd.Wait()
	if state, _ := probeProcess(self.PID); state != gone {
		t.Errorf("probe of a reaped process: %v, want gone", state)
	}
}

// TestStatLiveness reads crafted /proc/PID/stat lines.
func TestStatLiveness(t *testing.T) {
	line := func(pid, comm, state, threads, start string) []byte {
		return []byte(pid + " (" + comm + ") " + state + " 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 " + threads + " 0 " + start +
			" 3133440 379 18446744073709551615 94490597625856 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n")
	}
	for _, c := range []struct {
		name  string
		pid   int
		b     []byte
		state liveness
		start uint64
	}{
		{"running", 42, line("42", "app", "S", "9", "87262"), running, 87262},
		{"command with spaces and parentheses", 42, line("42", "a) (b ) S 7", "R", "1", "5"), running, 5},
		{"zombie", 42, line("42", "app", "Z", "1", "87262"), gone, 0},
		{"zombie leader, other threads running", 42, line("42", "app", "Z", "3", "87262"), running, 87262},
		{"dead", 42, line("42", "app", "X", "1", "87262"), gone, 0},
		{"another PID", 43, line("42", "app", "S", "1", "87262"), unknown, 0},
		{"truncated", 42, []byte("42 (app) S 1 1"), unknown, 0},
		{"ends at the start time", 42, []byte("42 (app) S 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 87262"), running, 87262},
		{"ends before the start time", 42, []byte("42 (app) S 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0"), unknown, 0},
		{"no command", 42, []byte("42 S 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 5 6"), unknown, 0},
		{"bad start", 42, line("42", "app", "S", "1", "-5"), unknown, 0},
		{"empty", 42, nil, unknown, 0},
	} {
		if state, start := statLiveness(c.pid, c.b); state != c.state || start != c.start {
			t.Errorf("%s: %v, start %d; want %v, start %d", c.name, state, start, c.state, c.start)
		}
	}
}

// FuzzParseStat: a line made of any command name and fields reads back as
// those fields.
func FuzzParseStat(f *testing.F) {
	f.Add(42, "app", byte('S'), 9, uint64(87262))
	f.Add(1, "a) (b ) S 7", byte('Z'), 1, uint64(0))
	f.Fuzz(func(t *testing.T, pid int, comm string, state byte, threads int, start uint64) {
		if pid <= 0 || threads < 0 || state <= ' ' || state == ')' || state >= 0x7f {
			return
		}
		b := []byte(strconv.Itoa(pid) + " (" + comm + ") " + string(state) + " 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 " + strconv.Itoa(threads) + " 0 " +
			strconv.FormatUint(start, 10) + " 3133440 379\n")
		gotPID, gotState, gotThreads, gotStart, ok := parseStat(b)
		if !ok || gotPID != pid || gotState != state || gotThreads != threads || gotStart != start {
			t.Fatalf("parseStat(%q) = %d %q %d %d %v", b, gotPID, gotState, gotThreads, gotStart, ok)
		}
	})
}
