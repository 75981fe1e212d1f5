//go:build linux

package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// supervisorName is the argv[0] of the supervisor process that hold
// starts between itself and CMD (package supervise).
const supervisorName = "once-lease-hold-supervisor"

// The process-tree tests: whatever CMD starts, wherever it goes (its own
// session, a double fork), must be gone before the machine ID can be held
// again.

// treeLine parses CMD's "pids ID PID..." line: the machine ID CMD got and
// the PIDs of the processes it started.
func (p *proc) treeLine(t *testing.T) (id int, pids []int) {
	t.Helper()
	l, _ := p.line(t)
	f := strings.Fields(l)
	if len(f) < 3 || f[0] != "pids" {
		<-p.done
		t.Fatalf("CMD printed %q, want \"pids ID PID...\"; hold exited %d, stderr: %s", l, p.code, p.errb.String())
	}
	id, err := strconv.Atoi(f[1])
	if err != nil || id < 0 || id > 511 {
		t.Fatalf("CMD printed %q: ONCE_MACHINE_ID is not a machine ID", l)
	}
	for _, s := range f[2:] {
		pid, err := strconv.Atoi(s)
		if err != nil || pid <= 1 {
			t.Fatalf("CMD printed %q: %q is not a PID", l, s)
		}
		pids = append(pids, pid)
	}
	// Whatever the test's outcome, nothing it started outlives it.
	t.Cleanup(func() {
		for _, pid := range pids {
			if procStat(pid).starttime != 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return id, pids
}

// daemonSh is a shell word that starts a daemon: a double fork into a
// session of its own, ignoring SIGTERM, running "sleep 120" with its
// standard streams closed to the test; the word is the daemon's PID.
const daemonSh = `$(setsid sh -c 'echo $$; trap "" TERM; exec sleep 120 </dev/null >/dev/null 2>&1' &)`

// ownSession fails the test unless pid is in another session than the
// test (and so than hold and CMD).
func ownSession(t *testing.T, pid int) {
	t.Helper()
	if s, me := procStat(pid), procStat(os.Getpid()); s.starttime == 0 || s.sid == me.sid {
		t.Fatalf("precondition: PID %d (%+v) is not in a session of its own", pid, s)
	}
}

// statFields is what the tests read of /proc/PID/stat.
type statFields struct {
	state     byte
	ppid, sid int
	starttime uint64 // 0: no such process
}

func procStat(pid int) statFields {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statFields{}
	}
	_, rest, ok := strings.Cut(string(b[strings.LastIndexByte(string(b), ')'):]), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 20 {
		return statFields{}
	}
	ppid, _ := strconv.Atoi(f[1])
	sid, _ := strconv.Atoi(f[3])
	st, _ := strconv.ParseUint(f[19], 10, 64)
	return statFields{state: f[0][0], ppid: ppid, sid: sid, starttime: st}
}

// living returns those of pids that are still processes (zombies count as
// ended: they run no code).
func living(pids []int) []int {
	var l []int
	for _, pid := range pids {
		if s := procStat(pid); s.starttime != 0 && s.state != 'Z' {
			l = append(l, pid)
		}
	}
	return l
}

// heldUntil reads row id's expiry straight from the table (UTC).
func (st *sqlTable) heldUntil(t *testing.T, id int) time.Time {
	t.Helper()
	q := "SELECT expires_at FROM " + st.q + " WHERE id = ?"
	if st.d == migrations.Postgres {
		q = "SELECT expires_at FROM " + st.q + " WHERE id = $1"
	}
	var v any
	if err := st.db.QueryRowContext(context.Background(), q, id).Scan(&v); err != nil {
		t.Fatalf("reading row %d: %v", id, err)
	}
	switch v := v.(type) {
	case time.Time:
		return time.Date(v.Year(), v.Month(), v.Day(), v.Hour(), v.Minute(), v.Second(), v.Nanosecond(), time.UTC)
	case string:
		at, err := time.Parse("2006-01-02T15:04:05.000000Z", v)
		if err != nil {
			t.Fatalf("row %d: expires_at %q: %v", id, v, err)
		}
		return at
	case []byte:
		at, err := time.Parse("2006-01-02T15:04:05.000000Z", string(v))
		if err != nil {
			t.Fatalf("row %d: expires_at %q: %v", id, v, err)
		}
		return at
	}
	t.Fatalf("row %d: expires_at is a %T", id, v)
	return time.Time{}
}

// TestLeaseHoldTreeHoldKilled: hold killed with SIGKILL while CMD, a shell,
// runs a background child and a TERM-ignoring grandchild in a session of
// its own: every one of them is gone within --grace, and when the next
// holder of the machine ID starts its CMD none of them lives.
func TestLeaseHoldTreeHoldKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the killed holder's lease to expire (30s)")
	}
	t.Parallel()
	for _, c := range execTables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := c.setup(t)
			p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--grace", testGrace.String(), "--", "sh", "-c", `
sleep 120 >/dev/null 2>&1 &
a=$!
echo "pids $ONCE_MACHINE_ID $$ $a ` + daemonSh + `"
wait`})...)
			id, pids := p.treeLine(t)
			ownSession(t, pids[2])
			until := st.heldUntil(t, id)
			// The other rows are taken: the next hold waits for id.
			st.claimAllBut(t, id)
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			p.wait()
			for time.Since(killed) < testGrace+3*time.Second && len(living(pids)) > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			if l := living(pids); len(l) > 0 {
				t.Errorf("%v after hold got SIGKILL, CMD's processes %v (of %v) still run", time.Since(killed).Round(time.Millisecond), l, pids)
			}
			p2 := startHold(t, slices.Concat(st.flags, shortLease, []string{"--acquire-timeout", "2m", "--", "sh", "-c", `echo "pids $ONCE_MACHINE_ID $$"; exec sleep 60`})...)
			id2, _ := p2.treeLine(t)
			l := living(pids)
			if id2 != id || !time.Now().After(until) {
				t.Fatalf("the next hold got machine ID %d at %v, want %d after its lease's expiry %v", id2, time.Now().UTC(), id, until)
			}
			if len(l) > 0 {
				t.Errorf("machine ID %d given to the next holder while processes %v that the killed holder's CMD started still run", id, l)
			}
		})
	}
}

// claimAllBut takes every row but id far into the future.
func (st *sqlTable) claimAllBut(t *testing.T, id int) {
	t.Helper()
	q := "UPDATE " + st.q + " SET token = randomblob(16), expires_at = '2999-01-01T00:00:00.000000Z', lock_version = lock_version + 1 WHERE id <> ?"
	if st.d == migrations.Postgres {
		q = "UPDATE " + st.q + " SET token = decode(md5(random()::text), 'hex'), expires_at = TIMESTAMP '2999-01-01 00:00:00', lock_version = lock_version + 1 WHERE id <> $1"
	}
	if _, err := st.db.ExecContext(context.Background(), q, id); err != nil {
		t.Fatalf("claiming every row but %d: %v", id, err)
	}
}

// TestLeaseHoldTreeDaemon: CMD starts daemons (a double fork with setsid,
// ignoring SIGTERM; a setsid child) and exits: they are stopped before the
// lease is released, not left running with the machine ID.
func TestLeaseHoldTreeDaemon(t *testing.T) {
	st := sqlTables()[2].setup(t) // SQLite
	gate := filepath.Join(t.TempDir(), "exit")
	p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--", "sh", "-c", `
d2=$( (setsid sh -c 'sleep 120 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 120 </dev/null >/dev/null 2>&1' &) )
echo "pids $ONCE_MACHINE_ID ` + daemonSh + ` $d2"
while [ ! -e "$1" ]; do sleep 0.05; done`, "sh", gate})...)
	id, pids := p.treeLine(t)
	for _, pid := range pids {
		ownSession(t, pid)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// CMD exits now. Watch the row: the moment it is released, none of
	// them may live.
	var atRelease []int
	for !isDone(p.done) {
		if !st.heldUntil(t, id).After(time.Now().UTC()) {
			atRelease = living(pids)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	code := p.wait()
	if code != 0 {
		t.Fatalf("hold: exit %d; stderr: %s", code, p.errb.String())
	}
	if l := living(pids); len(l) > 0 || len(atRelease) > 0 {
		t.Errorf("CMD's daemons %v (of %v) alive when the lease was released, %v when hold exited", atRelease, pids, l)
	}
	if st.heldUntil(t, id).After(time.Now().UTC()) {
		t.Errorf("machine ID %d still held after hold exited", id)
	}
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// freezer returns a new cgroup-v1 freezer group, removed (thawed first)
// when the test ends, or skips when the machine has none to give.
func freezer(t *testing.T) string {
	t.Helper()
	root := "/sys/fs/cgroup/freezer"
	if _, err := os.Stat(filepath.Join(root, "freezer.state")); err != nil {
		if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
			t.Skip("no cgroup-v1 freezer at " + root + ": a process that survives SIGKILL cannot be made")
		}
	}
	dir := filepath.Join(root, testenv.Unique(t, "oncehold"))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a freezer cgroup (%v): a process that survives SIGKILL cannot be made", err)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(dir, "freezer.state"), []byte("THAWED"), 0)
		for range 100 {
			if os.Remove(dir) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("could not remove %s", dir)
	})
	return dir
}

// freeze moves pid into the freezer group dir and freezes it: it then
// stays (in state D) after SIGKILL until thawed, as a process stuck in the
// kernel (a hung NFS server, a dead disk) does.
func freeze(t *testing.T, dir string, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "freezer.state"), []byte("FROZEN"), 0); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if b, _ := os.ReadFile(filepath.Join(dir, "freezer.state")); strings.TrimSpace(string(b)) == "FROZEN" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the freezer group did not freeze")
}

// TestLeaseHoldTreeUnkillable: a process CMD started that survives SIGKILL
// (frozen: it stays in the kernel, as one stuck on a hung NFS mount does)
// keeps the lease held after CMD exits: hold goes on renewing, says so on
// standard error, and releases the machine ID only once it has ended.
func TestLeaseHoldTreeUnkillable(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a stuck process across several renewals")
	}
	t.Parallel()
	dir := freezer(t)
	st := sqlTables()[2].setup(t) // SQLite
	gate := filepath.Join(t.TempDir(), "exit")
	p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--", "sh", "-c", `
echo "pids $ONCE_MACHINE_ID ` + daemonSh + `"
while [ ! -e "$1" ]; do sleep 0.05; done`, "sh", gate})...)
	id, pids := p.treeLine(t)
	freeze(t, dir, pids[0])
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// CMD exits now; the frozen process cannot be stopped.
	time.Sleep(6 * time.Second)
	if isDone(p.done) {
		t.Fatalf("hold exited %d while CMD's process %d lives (frozen); stderr: %s", p.code, pids[0], p.errb.String())
	}
	left := time.Until(st.heldUntil(t, id))
	if left < 27*time.Second {
		t.Errorf("6s after CMD exited, machine ID %d has %v left, want it renewed (about 29s of a 30s lease)", id, left.Round(time.Millisecond))
	}
	if msg := p.errb.String(); !strings.Contains(msg, strconv.Itoa(pids[0])) || !strings.Contains(msg, "still running") {
		t.Errorf("stderr does not name the process that still runs (%d): %s", pids[0], msg)
	}
	if err := os.WriteFile(filepath.Join(dir, "freezer.state"), []byte("THAWED"), 0); err != nil {
		t.Fatal(err)
	}
	thawed := time.Now()
	code := p.wait()
	if d := time.Since(thawed); code != 0 || d > 5*time.Second {
		t.Errorf("hold exited %d %v after the stuck process was thawed, want 0 at once; stderr: %s", code, d, p.errb.String())
	}
	if l := living(pids); len(l) > 0 {
		t.Errorf("process %v alive after hold exited", l)
	}
	if st.heldUntil(t, id).After(time.Now().UTC()) {
		t.Errorf("machine ID %d still held after hold exited", id)
	}
}

// TestLeaseHoldTreeStopped: hold stopped (SIGSTOP) for longer than its
// lease can neither renew nor stop CMD; the lease expires and another
// holder takes the machine ID. By then every process of the stopped
// holder's CMD, including one in a session of its own that ignores
// SIGTERM, has been stopped. Once resumed, the old hold exits without
// touching the new holder's lease.
func TestLeaseHoldTreeStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the stopped holder's lease to expire (30s)")
	}
	t.Parallel()
	st := sqlTables()[2].setup(t) // SQLite
	p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--grace", testGrace.String(), "--", "sh", "-c", `
echo "pids $ONCE_MACHINE_ID $$ ` + daemonSh + `"
while :; do sleep 0.1; done`})...)
	id, pids := p.treeLine(t)
	ownSession(t, pids[1])
	st.claimAllBut(t, id)
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	t.Cleanup(func() { p.cmd.Process.Signal(syscall.SIGCONT) })
	p2 := startHold(t, slices.Concat(st.flags, shortLease, []string{"--acquire-timeout", "2m", "--", "sh", "-c", `echo "pids $ONCE_MACHINE_ID $$"; exec sleep 60`})...)
	id2, _ := p2.treeLine(t)
	l := living(pids)
	if id2 != id {
		t.Fatalf("the next hold got machine ID %d, want %d", id2, id)
	}
	if len(l) > 0 {
		t.Errorf("machine ID %d given to the next holder %v after the first was stopped, while processes %v of the stopped holder's CMD still run",
			id, time.Since(stopped).Round(time.Millisecond), l)
	}
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	code := p.wait()
	if code == 0 {
		t.Errorf("the resumed hold exited 0, want a failure; stderr: %s", p.errb.String())
	}
	if !st.heldUntil(t, id).After(time.Now().UTC()) {
		t.Errorf("the resumed hold freed machine ID %d, which the next holder holds", id)
	}
	t.Logf("stopped hold's stderr:\n%s", p.errb.String())
}

// supervisorOf returns the PID of hold's supervisor: its child named
// supervisorName.
func supervisorOf(t *testing.T, hold int) int {
	t.Helper()
	names, _ := os.ReadDir("/proc")
	for _, n := range names {
		pid, err := strconv.Atoi(n.Name())
		if err != nil || procStat(pid).ppid != hold {
			continue
		}
		b, _ := os.ReadFile("/proc/" + n.Name() + "/cmdline")
		if strings.HasPrefix(string(b), supervisorName+"\x00") {
			return pid
		}
	}
	t.Fatalf("hold (PID %d) has no child named %s", hold, supervisorName)
	return 0
}

// TestLeaseHoldTreeSupervisorKilled: should CMD's supervisor be killed
// (SIGKILL), CMD dies with it and hold, a subreaper too, adopts the rest of
// the tree (a daemon ignoring SIGTERM), kills it and releases the machine
// ID only once none of it is left.
func TestLeaseHoldTreeSupervisorKilled(t *testing.T) {
	st := sqlTables()[2].setup(t) // SQLite
	p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--", "sh", "-c", `
echo "pids $ONCE_MACHINE_ID $$ ` + daemonSh + `"
while :; do sleep 0.1; done`})...)
	id, pids := p.treeLine(t)
	ownSession(t, pids[1])
	if err := syscall.Kill(supervisorOf(t, p.cmd.Process.Pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code := p.wait()
	if code != 128+int(syscall.SIGKILL) || !strings.Contains(p.errb.String(), "supervisor ended") {
		t.Errorf("hold: exit %d, want 137 and the supervisor's end on stderr; stderr: %s", code, p.errb.String())
	}
	if l := living(pids); len(l) > 0 {
		t.Errorf("CMD's processes %v (of %v) alive after hold exited", l, pids)
	}
	if st.heldUntil(t, id).After(time.Now().UTC()) {
		t.Errorf("machine ID %d still held after hold exited", id)
	}
}
