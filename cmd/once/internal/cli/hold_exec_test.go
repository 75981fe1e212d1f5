//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package cli

import (
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/cmd/once/internal/supervise"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// A CMD for hold: a shell that says when it starts (with its machine ID
// and PID) and then runs until stopped. trap is prepended: how it answers
// SIGTERM and SIGINT.
func loopCmd(trap string) []string {
	return []string{"--", "sh", "-c", trap + `
echo "started $ONCE_MACHINE_ID $$"
while :; do sleep 0.1; done`}
}

// execTables are the coordinators of the CMD tests: SQLite and PostgreSQL.
func execTables() []struct {
	name  string
	setup func(t *testing.T) *sqlTable
} {
	return slices.DeleteFunc(sqlTables(), func(c struct {
		name  string
		setup func(t *testing.T) *sqlTable
	}) bool {
		return c.name == "mariadb"
	})
}

// line waits for the next stdout line of p (CMD's output), for up to
// procTimeout, and returns it with the time it was read; "" at EOF.
func (p *proc) line(t *testing.T) (string, time.Time) {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			return "", time.Now()
		}
		return l, time.Now()
	case <-time.After(procTimeout):
		t.Fatalf("no output within %v; stderr: %s", procTimeout, p.errb.String())
	}
	return "", time.Time{}
}

// started waits for CMD's "started ID PID" line and returns ID and PID.
func (p *proc) started(t *testing.T) (id, pid int) {
	t.Helper()
	l, _ := p.line(t)
	f := strings.Fields(l)
	if len(f) != 3 || f[0] != "started" {
		<-p.done
		t.Fatalf("CMD printed %q, want \"started ID PID\"; hold exited %d, stderr: %s", l, p.code, p.errb.String())
	}
	id, err1 := strconv.Atoi(f[1])
	pid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || id < 0 || id > 511 {
		t.Fatalf("CMD printed %q: ONCE_MACHINE_ID is not a machine ID", l)
	}
	return id, pid
}

// exitedAt waits for hold to exit and returns its status and when it was
// seen to exit.
func (p *proc) exitedAt() (int, time.Time) {
	code := p.wait()
	return code, time.Now()
}

// gone reports whether process pid has ended (or is a zombie), waiting up
// to 5 s for it.
func gone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if _, rest, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(rest, "Z") {
				return true
			}
		}
	}
	return false
}

const testGrace = 2 * time.Second

// TestLeaseHoldExecLost: when another holder takes the row over, the next
// renewal finds the lease lost and CMD gets SIGTERM at once: a CMD that
// exits on it makes hold exit with its status; one that carries on gets
// SIGKILL --grace later (hold exits 137).
func TestLeaseHoldExecLost(t *testing.T) {
	t.Parallel()
	for _, c := range execTables() {
		for _, v := range []struct {
			name string
			trap string
			want int
		}{
			{"exits-on-term", `trap 'echo term; exit 7' TERM`, 7},
			{"ignores-term", `trap 'echo term' TERM`, 128 + int(syscall.SIGKILL)},
		} {
			t.Run(c.name+"-"+v.name, func(t *testing.T) {
				t.Parallel()
				st := c.setup(t)
				p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--grace", testGrace.String()}, loopCmd(v.trap))...)
				id, _ := p.started(t)
				stolen := time.Now()
				st.setExpiry(t, id, time.Now().Add(time.Hour))
				l, termSeen := p.line(t)
				if l != "term" {
					t.Fatalf("after the row was taken over CMD printed %q, want \"term\"; stderr: %s", l, p.errb.String())
				}
				code, exited := p.exitedAt()
				if code != v.want || !strings.Contains(p.errb.String(), "lease lost") {
					t.Fatalf("hold: exit %d, want %d; stderr: %s", code, v.want, p.errb.String())
				}
				// Renewals come every second (30s lease, 11s interval).
				if d := termSeen.Sub(stolen); d > 8*time.Second {
					t.Errorf("SIGTERM seen %v after the row was taken over, want within the next renewal", d)
				}
				if v.want == 128+int(syscall.SIGKILL) {
					if d := exited.Sub(termSeen); d < testGrace-300*time.Millisecond || d > testGrace+5*time.Second {
						t.Errorf("SIGKILL %v after SIGTERM was seen, want about --grace %v", d, testGrace)
					}
				} else if d := exited.Sub(termSeen); d > testGrace {
					t.Errorf("hold exited %v after CMD did, want at once", d)
				}
				t.Logf("stderr:\n%s", p.errb.String())
			})
		}
	}
}

// blockRenewals makes the lease table refuse hold's renewals until the
// test ends: an exclusive transaction (SQLite) or a lock on the row
// (PostgreSQL), held by the test.
func blockRenewals(t *testing.T, st *sqlTable, id int) {
	t.Helper()
	ctx := context.Background()
	conn, err := st.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	begin, lock := "BEGIN EXCLUSIVE", ""
	if st.d == migrations.Postgres {
		begin, lock = "BEGIN", "SELECT id FROM "+st.q+" WHERE id = $1 FOR UPDATE"
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		t.Fatal(err)
	}
	if lock != "" {
		if _, err := conn.ExecContext(ctx, lock, id); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
	})
}

// TestLeaseHoldExecNotRenewed: when the coordinator stops answering
// renewals, CMD gets SIGTERM once less than --grace is left of the safe
// window and SIGKILL at its end: it is gone before the lease expires on the
// coordinator (whose expiry a successor waits out), and hold exits 137.
func TestLeaseHoldExecNotRenewed(t *testing.T) {
	t.Parallel()
	for _, c := range execTables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := c.setup(t)
			p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--grace", testGrace.String()}, loopCmd(`trap 'echo term' TERM`))...)
			id, _ := p.started(t)
			listed := time.Now()
			row := ls(t, st.flags)[id]
			if !row.held || row.ttl == 0 {
				t.Fatalf("machine ID %d while CMD runs: %+v, want held with a TTL", id, row)
			}
			expiry := listed.Add(row.ttl) // no later than the coordinator's
			blocked := time.Now()
			blockRenewals(t, st, id)
			l, termSeen := p.line(t)
			code, exited := p.exitedAt()
			if l != "term" || code != 128+int(syscall.SIGKILL) {
				t.Fatalf("CMD printed %q, hold exited %d; want \"term\" and 137; stderr: %s", l, code, p.errb.String())
			}
			// The safe window is 20s (30s lease minus the 10s margin) from
			// the last renewal, which came at most a second or so before
			// the block: SIGTERM is due 18s after it.
			if d := termSeen.Sub(blocked); d < 12*time.Second {
				t.Errorf("SIGTERM seen %v after renewals were blocked, want near the end of the 20s safe window", d)
			}
			if !exited.Before(expiry) {
				t.Errorf("hold exited at %v, after the lease's expiry on the coordinator %v", exited.UTC().Format("15:04:05.000"), expiry.Format("15:04:05.000"))
			}
			if !strings.Contains(p.errb.String(), "not renewed") {
				t.Errorf("stderr does not say the lease was not renewed: %s", p.errb.String())
			}
		})
	}
}

// TestLeaseHoldExecSignal: SIGINT and SIGTERM sent to hold go to CMD;
// hold exits with CMD's status (143 when SIGTERM ended it, 137 when CMD
// ignored it for --grace) and releases the machine ID.
func TestLeaseHoldExecSignal(t *testing.T) {
	for _, v := range []struct {
		name string
		trap string
		sig  syscall.Signal
		want []string // what CMD prints after "started"
		code int
	}{
		{"int-handled", `trap 'echo int; exit 5' INT`, syscall.SIGINT, []string{"int"}, 5},
		{"term-default", ``, syscall.SIGTERM, nil, 128 + int(syscall.SIGTERM)},
		{"term-ignored", `trap '' TERM`, syscall.SIGTERM, nil, 128 + int(syscall.SIGKILL)},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			st := sqlTables()[2].setup(t) // SQLite
			p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--grace", testGrace.String()}, loopCmd(v.trap))...)
			id, _ := p.started(t)
			sent := time.Now()
			if err := p.cmd.Process.Signal(v.sig); err != nil {
				t.Fatal(err)
			}
			var got []string
			for l := range p.lines {
				got = append(got, l)
			}
			code, exited := p.exitedAt()
			if code != v.code || !slices.Equal(got, v.want) {
				t.Fatalf("hold after %v: exit %d, CMD printed %q; want %d, %q; stderr: %s", v.sig, code, got, v.code, v.want, p.errb.String())
			}
			if took := exited.Sub(sent); v.code == 137 && took < testGrace-300*time.Millisecond {
				t.Errorf("CMD ignoring %v was killed after %v, before --grace %v", v.sig, took, testGrace)
			}
			if rows := ls(t, st.flags); rows[id].held {
				t.Errorf("machine ID %d still held after hold exited", id)
			}
		})
	}
}

// TestLeaseHoldExecLeftovers: what CMD leaves running in its process group
// is killed when CMD exits, before the lease is released.
func TestLeaseHoldExecLeftovers(t *testing.T) {
	st := sqlTables()[2].setup(t) // SQLite
	p := startHold(t, slices.Concat(st.flags, shortLease, []string{"--", "sh", "-c", `sleep 300 >/dev/null 2>&1 & echo "$!"`})...)
	l, _ := p.line(t)
	pid, err := strconv.Atoi(l)
	if err != nil {
		t.Fatalf("CMD printed %q, want the PID of its background sleep", l)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("hold: exit %d; stderr: %s", code, p.errb.String())
	}
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("CMD's background process %d outlived hold", pid)
	}
}

// TestLeaseHoldExecHoldKilled: on Linux, CMD dies with hold when hold is
// killed with SIGKILL (it would otherwise outlive the lease).
func TestLeaseHoldExecHoldKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("parent-death signals are Linux only")
	}
	st := sqlTables()[2].setup(t) // SQLite
	p := startHold(t, slices.Concat(st.flags, shortLease, loopCmd(""))...)
	_, pid := p.started(t)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		syscall.Kill(-pid, syscall.SIGKILL) // its group: the shell and its sleep, which hold stdout open
		t.Errorf("CMD (PID %d) outlived hold killed with SIGKILL", pid)
	}
	p.wait()
}

// TestLeaseHoldExecInProcess runs hold -- CMD through run(), so the race
// detector sees the exec path: CMD gets the machine ID, hold exits with
// CMD's status and releases the ID; a CMD that cannot be found is 127.
func TestLeaseHoldExecInProcess(t *testing.T) {
	path := testenv.SQLitePath(t)
	flags := []string{"--driver", "sqlite", "--dsn", path}
	if r := cli("", append([]string{"lease", "migrate"}, flags...)...); r.code != 0 {
		t.Fatal(r)
	}
	r := cli("", slices.Concat([]string{"lease", "hold"}, flags, shortLease, []string{"--verbose", "--", "sh", "-c", `echo "id=$ONCE_MACHINE_ID"; echo oops >&2; exit 3`})...)
	if r.code != 3 || len(r.lines()) != 1 || !strings.HasPrefix(r.lines()[0], "id=") || !strings.Contains(r.stderr, "oops") || !strings.Contains(r.stderr, "lease release done") {
		t.Fatalf("hold -- sh: %v\nwant exit 3, id=N on stdout, oops and the release on stderr", r)
	}
	id, err := strconv.Atoi(strings.TrimPrefix(r.lines()[0], "id="))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // SQLite's clock has milliseconds
	if row := lsIn(t, flags)[id]; row.held {
		t.Errorf("after hold -- sh: %+v, want machine ID %d free", row, id)
	}
	r = cli("", slices.Concat([]string{"lease", "hold"}, flags, shortLease, []string{"--", "no-such-command-for-once"})...)
	if r.code != supervise.ExitNotFound || !strings.Contains(r.stderr, "no-such-command-for-once") {
		t.Errorf("hold -- a missing command: %v\nwant exit 127 naming it", r)
	}
}
