package lease_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
)

// logBuffer collects a manager's log records as text.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logTo makes r's managers log at INFO and above to a buffer.
func logTo(r *rig) *logBuffer {
	l := &logBuffer{}
	r.opts.Logger = slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return l
}

// copyState copies a state file as cp does, editing its record on the way
// (nil: none).
func copyState(t *testing.T, from, to string, edit func(record map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var record map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(b), &record); err != nil {
			t.Fatalf("state file %s: %v", from, err)
		}
		edit(record)
		if b, err = json.Marshal(record); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func needProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the state file identifies its writer through Linux's /proc")
	}
}

// TestStateFileCopyOfLiveManagerNotReclaimed: a copy of a live manager's
// state file (cp a/once-lease.json b/) is not reclaimed: the manager
// started on it takes another machine ID and leaves the live one's lease
// alone, with a warning. The live manager then crashes, and a restart on
// its own file still reclaims its lease.
func TestStateFileCopyOfLiveManagerNotReclaimed(t *testing.T) {
	needProc(t)
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		logs := logTo(r)
		dir := t.TempDir()
		r.opts.StateFile = filepath.Join(dir, "a.json")
		m1 := r.start()
		id := m1.MachineID()
		token, _, _ := r.s.mem.Holder(id)
		copyState(t, r.opts.StateFile, filepath.Join(dir, "b.json"), nil)

		m2, f2 := startAnother(t, r, filepath.Join(dir, "b.json"))
		if got, _, live := r.s.mem.Holder(id); m2.MachineID() == id || got != token || !live {
			t.Fatalf("the copy's manager holds machine ID %d; machine ID %d's token changed: %v", m2.MachineID(), id, got != token)
		}
		if n := r.j.count("strategy reclaim"); n != 0 {
			t.Errorf("%d reclaims of a live manager's lease", n)
		}
		if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "still runs") {
			t.Errorf("no warning about the copy:\n%s", logs)
		}
		if n := holders([]*lease.Manager{m1, m2}, []*fakeFactory{r.f, f2}); n[id] > 1 {
			t.Fatalf("two managers generate with machine ID %d", id)
		}

		crash(t, r, m1)
		time.Sleep(time.Minute)
		m3 := r.start()
		if m3.MachineID() != id || r.j.count("strategy reclaim") != 1 {
			t.Errorf("restart on the crashed manager's own file: machine ID %d (want %d), %d reclaims (want 1)", m3.MachineID(), id, r.j.count("strategy reclaim"))
		}
	})
}

// TestStateFileCopyReclaimedOnlyAfterWriterExits: a copy whose record
// names another process (as a copy of that process's file does) is not
// reclaimed while that process runs, and is once it has exited. A record
// without the writer's identity (an older version's) is never reclaimed,
// even in place.
func TestStateFileCopyReclaimedOnlyAfterWriterExits(t *testing.T) {
	needProc(t)
	r := newRig(t, 512)
	logs := logTo(r)
	dir := t.TempDir()
	r.opts.StateFile = filepath.Join(dir, "a.json")
	crash(t, r, r.start())
	token, _, _ := r.s.mem.Holder(0)

	pid, identity, stop := lease.StartProcess(t)
	var writer any
	if err := json.Unmarshal([]byte(identity), &writer); err != nil {
		t.Fatal(err)
	}
	byWriter := func(record map[string]any) { record["process"] = writer }
	for _, name := range []string{"b1.json", "b2.json"} {
		copyState(t, r.opts.StateFile, filepath.Join(dir, name), byWriter)
	}
	copyState(t, r.opts.StateFile, r.opts.StateFile, func(record map[string]any) {
		delete(record, "file")
		delete(record, "process")
	})

	m, _ := startAnother(t, r, r.opts.StateFile)
	if m.MachineID() == 0 || r.j.count("strategy reclaim") != 0 || !strings.Contains(logs.String(), "older version") {
		t.Errorf("a record without the writer's identity: machine ID %d, %d reclaims; logs:\n%s", m.MachineID(), r.j.count("strategy reclaim"), logs)
	}

	m, _ = startAnother(t, r, filepath.Join(dir, "b1.json"))
	if got, _, _ := r.s.mem.Holder(0); m.MachineID() == 0 || got != token || r.j.count("strategy reclaim") != 0 {
		t.Errorf("a copy of running PID %d's file: machine ID %d, %d reclaims", pid, m.MachineID(), r.j.count("strategy reclaim"))
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "still runs") {
		t.Errorf("no warning about the copy of a running process's file:\n%s", logs)
	}

	stop()
	m, _ = startAnother(t, r, filepath.Join(dir, "b2.json"))
	if m.MachineID() != 0 || r.j.count("strategy reclaim") != 1 {
		t.Errorf("a copy of exited PID %d's file: machine ID %d (want 0), %d reclaims (want 1); logs:\n%s", pid, m.MachineID(), r.j.count("strategy reclaim"), logs)
	}
}
