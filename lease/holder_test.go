package lease

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestJudge: a state file record is reclaimed only on proof that its
// writer stopped (this manager holds the lock of the file its writer
// locked, or the writer's process has exited), never on a record that
// leaves it open. The probe answers "gone" for every PID it is not told
// about, so a case whose check is missing falls through to it and is
// reclaimed: each refusal below fails when its check is removed.
func TestJudge(t *testing.T) {
	self := incarnation{host: "web-1", boot: "boot-1", proc: procID{PID: 100, Start: 5000, PIDNS: 40, TimeNS: 41}}
	here := fileID{Dev: 2049, Ino: 777}
	copyOf := fileID{Dev: 2049, Ino: 778} // the file its writer locked
	writer := procID{PID: 200, Start: 4000, PIDNS: 40, TimeNS: 41}
	rec := func(edit func(*stateRecord)) stateRecord {
		r := stateRecord{Strategy: "fake", MachineID: 7, Token: []byte("t"), Host: "web-1", BootID: "boot-1", File: copyOf, Proc: writer}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	type probed struct {
		state liveness
		start uint64
	}
	for _, c := range []struct {
		name    string
		r       stateRecord
		self    func(*incarnation)
		procs   map[int]probed // what the probe says of a PID; "gone" otherwise
		reclaim bool
		alive   bool
		why     string
	}{
		// Proofs.
		{name: "same file", r: rec(func(r *stateRecord) { r.File = here }),
			procs: map[int]probed{200: {running, 4000}}, reclaim: true, why: "lock on this file is free"},
		{name: "same file, from another PID namespace (a restarted container)", r: rec(func(r *stateRecord) { r.File, r.Proc.PIDNS = here, 39 }),
			procs: map[int]probed{200: {running, 4000}}, reclaim: true, why: "lock on this file is free"},
		{name: "copy, writer exited", r: rec(nil), reclaim: true, why: "PID 200, has exited"},
		{name: "copy, writer's PID reused", r: rec(nil),
			procs: map[int]probed{200: {running, 4500}}, reclaim: true, why: "another process's now"},

		// No proof.
		{name: "copy, writer alive", r: rec(nil),
			procs: map[int]probed{200: {running, 4000}}, alive: true, why: "PID 200, still runs"},
		{name: "copy, written by this process", r: rec(func(r *stateRecord) { r.Proc = self.proc }),
			procs: map[int]probed{100: {running, 5000}}, alive: true, why: "PID 100, still runs"},
		{name: "copy, writer hidden from this process", r: rec(nil),
			procs: map[int]probed{200: {unknown, 0}}, why: "cannot see"},
		{name: "copy from another PID namespace", r: rec(func(r *stateRecord) { r.Proc.PIDNS = 39 }), why: "another PID or time namespace"},
		{name: "copy from another time namespace", r: rec(func(r *stateRecord) { r.Proc.TimeNS = 42 }), why: "another PID or time namespace"},
		{name: "copy from another boot", r: rec(func(r *stateRecord) { r.BootID = "boot-0" }), why: "before a reboot"},
		{name: "same file from another boot (a cloned disk)", r: rec(func(r *stateRecord) { r.BootID, r.File = "boot-0", here }), why: "before a reboot"},
		{name: "another host", r: rec(func(r *stateRecord) { r.Host, r.File = "web-2", here }), why: `host "web-2"`},
		{name: "older version, in place", r: rec(func(r *stateRecord) { r.File, r.Proc = fileID{}, procID{} }), why: "older version"},
		{name: "older version, file identity without process", r: rec(func(r *stateRecord) { r.Proc = procID{} }), why: "older version"},
		{name: "no boot ID here", r: rec(func(r *stateRecord) { r.BootID, r.File = "", here }),
			self: func(s *incarnation) { s.boot = "" }, why: "no boot ID"},
		{name: "no /proc here", r: rec(nil), self: func(s *incarnation) { s.proc = procID{} }, why: "/proc does not identify"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := self
			if c.self != nil {
				c.self(&s)
			}
			p := func(pid int) (liveness, uint64) {
				if pid <= 0 {
					t.Fatalf("probed PID %d", pid)
				}
				if r, ok := c.procs[pid]; ok {
					return r.state, r.start
				}
				return gone, 0
			}
			v := judge(c.r, s, here, p)
			if v.reclaim != c.reclaim || v.alive != c.alive || !strings.Contains(v.why, c.why) {
				t.Errorf("judge = %+v; want reclaim %v, alive %v, a reason with %q", v, c.reclaim, c.alive, c.why)
			}
		})
	}
}

// TestHelperProcess is a process for the tests to probe (see
// startProcess): it prints its identity as a state file records it, then
// waits for the end of its stdin.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("ONCE_LEASE_HELPER_PROCESS") != "1" {
		t.Skip("helper of the state file tests")
	}
	b, _ := json.Marshal(thisProcess())
	fmt.Printf("%s\n", b)
	io.Copy(io.Discard, os.Stdin)
}

// startProcess starts TestHelperProcess; it returns the process and the
// identity the process read of itself (the JSON of a record's "process"
// field). Closing stdin ends it.
func startProcess(t *testing.T) (cmd *exec.Cmd, stdin io.WriteCloser, identity string) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ONCE_LEASE_HELPER_PROCESS=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper process: %v", err)
	}
	return cmd, stdin, strings.TrimSpace(line)
}
