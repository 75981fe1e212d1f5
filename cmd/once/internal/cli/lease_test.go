package cli

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/internal/testenv"
)

// Lease durations the process tests use: the manager's production minimums
// (30 s lease, renew interval > 10 s).
var shortLease = []string{"--duration", "30s", "--renew-interval", "11s"}

// procTimeout bounds every process a test starts.
const procTimeout = 3 * time.Minute

// runBin runs the binary to completion.
func runBin(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("once %s: %v", strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

// proc is a running "once lease hold".
type proc struct {
	cmd   *exec.Cmd
	lines chan string // stdout, line by line; closed at EOF
	errb  *lockedBuilder
	done  chan struct{}
	code  int
	out   []string // all stdout lines, valid after done
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startHold starts "once lease hold" with flags.
func startHold(t *testing.T, flags ...string) *proc {
	t.Helper()
	return startHoldEnv(t, nil, flags...)
}

// startHoldEnv is startHold with env added to the process's environment.
func startHoldEnv(t *testing.T, env []string, flags ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	p := &proc{lines: make(chan string, 16), errb: new(lockedBuilder), done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, binary(t), append([]string{"lease", "hold"}, flags...)...)
	p.cmd.Stderr = p.errb
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all []string
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			all = append(all, sc.Text())
			p.lines <- sc.Text()
		}
		close(p.lines)
		err := p.cmd.Wait()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -1
		}
		p.out = all
		cancel()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// machineID waits for the first stdout line and parses "machine_id=N".
func (p *proc) machineID(t *testing.T) int {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			<-p.done
			t.Fatalf("hold exited %d without a machine ID; stderr: %s", p.code, p.errb.String())
		}
		id, err := parseMachineID(l)
		if err != nil {
			t.Fatal(err)
		}
		return id
	case <-time.After(procTimeout):
		t.Fatalf("no machine ID within %v", procTimeout)
	}
	return -1
}

func parseMachineID(l string) (int, error) {
	v, ok := strings.CutPrefix(l, "machine_id=")
	id, err := strconv.Atoi(v)
	if !ok || err != nil || id < 0 || id > 511 {
		return -1, errors.New("hold printed " + strconv.Quote(l) + ", want machine_id=N")
	}
	return id, nil
}

// wait waits for the process to exit, draining stdout, and returns its
// exit status.
func (p *proc) wait() int {
	for range p.lines {
	}
	<-p.done
	return p.code
}

// forEachBackend runs test on every lease backend, in parallel with one
// another and with the package's other parallel tests.
func forEachBackend(t *testing.T, test func(t *testing.T, b leaseBackend)) {
	t.Parallel()
	for _, b := range leaseBackends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b)
		})
	}
}

// TestLeaseMigrate: migrate twice is harmless and leaves 512 free rows
// (SQL); Redis needs none and says so.
func TestLeaseMigrate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b leaseBackend) {
		flags, _ := b.setup(t) // the SQL setup has migrated once
		mflags := flags
		if i := slices.Index(flags, "--mode"); i >= 0 { // migrate has no --mode
			mflags = slices.Delete(slices.Clone(flags), i, i+2)
		}
		r := runBin(t, append([]string{"lease", "migrate"}, mflags...)...)
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("second lease migrate: %v", r)
		}
		if !b.sql && !strings.Contains(r.stderr, "needs no migration") {
			t.Errorf("redis migrate: stderr %q", r.stderr)
		}
		if held := heldIDs(ls(t, flags)); len(held) != 0 {
			t.Errorf("held after migrate: %v", held)
		}
	})
}

// TestLeaseHoldFor: hold prints machine_id=N, exits 0 after --for, and
// leaves the ID free.
func TestLeaseHoldFor(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b leaseBackend) {
		flags, _ := b.setup(t)
		p := startHold(t, append(append(flags, shortLease...), "--for", "2s")...)
		id := p.machineID(t)
		if code := p.wait(); code != 0 || len(p.out) != 1 {
			t.Fatalf("hold: exit %d, stdout %q, stderr %s", code, p.out, p.errb.String())
		}
		free := func(rows []lsRow) bool { return len(heldIDs(rows)) == 0 }
		if rows := lsAfterRelease(t, b, flags, free); !free(rows) {
			t.Errorf("after hold --for: held %v %v later, want none (released %d)", heldIDs(rows), b.releaseHold(), id)
		}
	})
}

// TestLeaseHoldSignal: while hold runs, ls shows its ID held; SIGTERM
// releases it and hold exits 0.
func TestLeaseHoldSignal(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b leaseBackend) {
		flags, claim := b.setup(t)
		claim(t, 3)
		p := startHold(t, append(flags, shortLease...)...)
		id := p.machineID(t)
		rows := ls(t, flags)
		if !rows[id].held || len(heldIDs(rows)) != 4 {
			t.Fatalf("ls during hold: held %v, want machine ID %d and the 3 claimed", heldIDs(rows), id)
		}
		if r := rows[id]; r.ttl < 10*time.Second || r.ttl > 31*time.Second || r.holder != holderOf(p) {
			t.Errorf("ls row %d during hold: %+v, want a TTL of about 30s and the holder %s", id, r, holderOf(p))
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Fatalf("hold after SIGTERM: exit %d, stderr %s", code, p.errb.String())
		}
		rows = lsAfterRelease(t, b, flags, func(rows []lsRow) bool { return !rows[id].held && len(heldIDs(rows)) == 3 })
		if rows[id].held || len(heldIDs(rows)) != 3 {
			t.Errorf("after SIGTERM: held %v %v later, want only the 3 claimed (machine ID %d released)", heldIDs(rows), b.releaseHold(), id)
		}
	})
}

// TestLeaseHoldExhausted: with all 512 IDs taken, hold gives up after the
// acquire timeout with exit status 3 and the reason on stderr.
func TestLeaseHoldExhausted(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b leaseBackend) {
		flags, claim := b.setup(t)
		claim(t, 512)
		start := time.Now()
		r := runBin(t, append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--acquire-timeout", "2s", "--for", "1s")...)...)
		if r.code != exitNoLease || r.stdout != "" || !strings.Contains(r.stderr, "acquire timeout") {
			t.Fatalf("hold with every ID taken: %v", r)
		}
		if took := time.Since(start); took < 2*time.Second {
			t.Errorf("hold gave up after %v, before its 2s acquire timeout", took)
		}
	})
}

// raceSlots limits how many 20-process races run at once (the CI machine
// is small; the races are about correctness, not load).
var raceSlots = make(chan struct{}, 3)

// TestLeaseHoldRace: 20 hold processes race for the last 12 free IDs:
// exactly 12 print distinct machine IDs (free ones) and exit 0 after --for,
// 8 exit 3.
func TestLeaseHoldRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b leaseBackend) {
		flags, claim := b.setup(t)
		claim(t, 500)
		before := ls(t, flags)
		raceSlots <- struct{}{}
		defer func() { <-raceSlots }()
		// --for is three acquire timeouts: every loser gives up long
		// before a winner releases its ID.
		args := append(append(flags, shortLease...), "--acquire-timeout", "5s", "--for", "15s")
		procs := make([]*proc, 20)
		for i := range procs {
			procs[i] = startHold(t, args...)
		}
		var won []int
		lost := 0
		for i, p := range procs {
			code := p.wait()
			switch code {
			case 0:
				if len(p.out) != 1 {
					t.Errorf("winner %d printed %q, want one machine_id line", i, p.out)
					continue
				}
				id, err := parseMachineID(p.out[0])
				if err != nil {
					t.Error(err)
					continue
				}
				won = append(won, id)
			case exitNoLease:
				lost++
				if len(p.out) != 0 || !strings.Contains(p.errb.String(), "acquire timeout") {
					t.Errorf("loser %d: stdout %q, stderr %s", i, p.out, p.errb.String())
				}
			default:
				t.Errorf("process %d: exit %d, stderr %s", i, code, p.errb.String())
			}
		}
		slices.Sort(won)
		if len(won) != 12 || lost != 8 || len(slices.Compact(slices.Clone(won))) != 12 {
			t.Fatalf("race: winners %v, %d losers; want 12 distinct winners and 8 losers", won, lost)
		}
		for _, id := range won {
			if before[id].held {
				t.Errorf("machine ID %d was handed out while claimed", id)
			}
		}
		after := lsAfterRelease(t, b, flags, func(rows []lsRow) bool { return len(heldIDs(rows)) == 500 })
		if held := heldIDs(after); len(held) != 500 {
			var extra []int
			for _, id := range held {
				if !before[id].held {
					extra = append(extra, id)
				}
			}
			t.Errorf("after the race %d IDs held, want the 500 claimed; also held: %v (winners %v)", len(held), extra, won)
			for i, p := range procs {
				t.Logf("process %d: exit %d, stdout %q, stderr:\n%s", i, p.code, p.out, p.errb.String())
			}
		}
	})
}

// TestLeaseHoldInProcess runs hold and ls through run() on SQLite, so the
// race detector sees the hold code (the binary is built without -race).
func TestLeaseHoldInProcess(t *testing.T) {
	path := testenv.SQLitePath(t)
	flags := []string{"--driver", "sqlite", "--dsn", path}
	if r := cli("", append([]string{"lease", "migrate"}, flags...)...); r.code != 0 {
		t.Fatal(r)
	}
	r := cli("", append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--for", "1500ms", "--verbose")...)...)
	if r.code != 0 || len(r.lines()) != 1 || !strings.Contains(r.stderr, "lease release done") {
		t.Fatalf("hold: %v", r)
	}
	id, err := parseMachineID(r.lines()[0])
	if err != nil {
		t.Fatal(err)
	}
	// SQLite's clock has milliseconds: a row released in this millisecond
	// (expires_at = now) is free from the next one.
	time.Sleep(2 * time.Millisecond)
	if row := lsIn(t, flags)[id]; row.held {
		t.Fatalf("ls after hold: machine ID %d %+v, want it free", id, row)
	}
	// A missing table is a failure (exit 1), not a usage error.
	r = cli("", append([]string{"lease", "hold", "--table", "nope", "--acquire-timeout", "2s"}, flags...)...)
	if r.code != exitFail || r.stdout != "" {
		t.Fatalf("hold on a missing table: %v", r)
	}
}

// TestLeaseHoldReacquire: when another holder takes the row over, hold
// reports the loss on stderr, prints the new machine_id=M line once it holds
// another ID, and still exits 0 on SIGTERM.
func TestLeaseHoldReacquire(t *testing.T) {
	path := testenv.SQLitePath(t)
	flags := []string{"--driver", "sqlite", "--dsn", path}
	if r := runBin(t, append([]string{"lease", "migrate"}, flags...)...); r.code != 0 {
		t.Fatal(r)
	}
	p := startHold(t, append(flags, shortLease...)...)
	first := p.machineID(t)
	db, err := sql.Open(coord.SQLiteDriver, "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec(`UPDATE once_leases SET token = randomblob(16), expires_at = '2999-01-01T00:00:00.000000Z',
		lock_version = lock_version + 1 WHERE id = ?`, first)
	if err != nil {
		t.Fatal(err)
	}
	second := p.machineID(t) // the next line, after the next renewal failed
	if second == first {
		t.Fatalf("re-acquired machine ID %d, which is taken", second)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 0 || !strings.Contains(p.errb.String(), "lease lost") {
		t.Fatalf("hold: exit %d, stderr %s", code, p.errb.String())
	}
	if held := heldIDs(ls(t, flags)); !slices.Equal(held, []int{first}) {
		t.Errorf("held after SIGTERM: %v, want only the taken-over %d", held, first)
	}
}
