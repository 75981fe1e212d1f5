package soakcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/tests/internal/soakrec"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// epochMS is the nonce epoch in Unix ms.
const epochMS = 1735689600000

// value packs a 64-bit nonce: 42 bits of ms since the epoch, 9 of machine
// ID, 13 of count.
func value(ms int64, mid int, count uint64) uint64 {
	return uint64(ms-epochMS)<<22 | uint64(mid)<<13 | count
}

// worker writes one process's records to its own file.
type worker struct {
	t    *testing.T
	w    *soakrec.Writer
	f    *os.File
	mid  int
	next uint64 // counter value
	scnt uint64 // count field of sortable values
}

func newWorker(t *testing.T, dir, proc string, pid int) *worker {
	f, err := os.Create(filepath.Join(dir, proc+"-"+time.Duration(pid).String()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return &worker{t: t, w: soakrec.NewWriter(f, proc, pid), f: f}
}

func (w *worker) event(kind string, mid int, d time.Duration) {
	w.mid = mid
	w.w.Event(mid, kind, at(d), "")
}

// draw emits a counter value (continuing from w.next or from start) and a
// sortable value stamped with the draw time, every step over [from, to).
func (w *worker) draws(from, to, step time.Duration) {
	for d := from; d < to; d += step {
		ms := at(d).UnixMilli()
		if w.next == 0 {
			w.next = value(ms, w.mid, 0)
		}
		w.w.ID(w.mid, "counter", false, w.next, at(d), at(d+time.Microsecond))
		w.next++
		w.w.ID(w.mid, "sortable", true, value(ms, w.mid, w.scnt), at(d), at(d+time.Microsecond))
	}
}

func (w *worker) close() string {
	if err := w.w.Close(); err != nil {
		w.t.Fatal(err)
	}
	w.f.Close()
	return w.f.Name()
}

func run(t *testing.T, files []string) *Result {
	t.Helper()
	r, err := Check(files, Options{TempDir: t.TempDir(), ShardBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func runMark(t *testing.T, dir string, end time.Duration) string {
	p := filepath.Join(dir, "run.jsonl")
	b := append(soakrec.Line("run", "start", "t", at(0)), soakrec.Line("run", "end", "t", at(end))...)
	b = append(b, soakrec.Line("fault", "sigstop", "target", "w1", "t", at(2*time.Second), "end", at(3*time.Second))...)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// clean: two workers with their own machine IDs, and machine ID 3 handed
// from w1 to w2 after w1 released it.
func cleanRun(t *testing.T, dir string) (a, b *worker) {
	a = newWorker(t, dir, "w1", 100)
	b = newWorker(t, dir, "w2", 200)
	a.event("acquired", 3, 0)
	a.draws(time.Millisecond, 4*time.Second, 10*time.Millisecond)
	a.event("renewed", 3, 2*time.Second)
	a.event("released", 3, 4*time.Second)
	b.event("acquired", 7, 0)
	b.draws(time.Millisecond, 5*time.Second, 10*time.Millisecond)
	b.event("lost", 7, 5*time.Second)
	b.event("released", 7, 5*time.Second+time.Millisecond)
	b.next = 0
	b.event("acquired", 3, 5*time.Second+2*time.Millisecond)
	b.draws(5*time.Second+3*time.Millisecond, 10*time.Second, 10*time.Millisecond)
	b.event("released", 3, 10*time.Second)
	return a, b
}

func TestCleanPasses(t *testing.T) {
	dir := t.TempDir()
	a, b := cleanRun(t, dir)
	r := run(t, []string{a.close(), b.close(), runMark(t, dir, 10*time.Second)})
	if !r.OK {
		t.Fatalf("clean records fail: %+v", r)
	}
	if r.IDs != 2*400+2*500+2*500 || r.IDsByKind["sortable"] != r.IDsByKind["counter"] || r.Masked != r.IDs/2 {
		t.Errorf("IDs %d (%v, masked %d), want 2800, half sortable and masked", r.IDs, r.IDsByKind, r.Masked)
	}
	if len(r.Leaked) != 0 {
		t.Errorf("leaked %v, want none", r.Leaked)
	}
	if len(r.Liveness) != 2 {
		t.Fatalf("liveness %+v", r.Liveness)
	}
	// w1 held machine ID 3 for 4 of the 10 s; w2 all but 2 ms.
	if l := r.Liveness[0]; l.Proc != "w1" || l.HeldShare < 0.39 || l.HeldShare > 0.41 || l.HeldLongestOutage < 5.9 || l.HeldLongestOutage > 6.1 ||
		l.Share < 0.39 || l.Share > 0.41 || l.LongestOutage < 5.9 || l.LongestOutage > 6.1 || l.Recovery != -1 {
		t.Errorf("w1 liveness %+v, want held and generating 0.4 of the time, longest outage 6s, not recovered", l)
	}
	// w2 was without a lease for 2ms at 5s, after the last fault (3s):
	// no 100ms slice without an ID.
	if l := r.Liveness[1]; l.HeldShare < 0.99 || l.HeldLongestOutage > 0.0021 || l.Share < 0.98 || l.LongestOutage > 0.1 || l.Recovery != 0 {
		t.Errorf("w2 liveness %+v, want held ~1 with a 2ms outage, generating ~1, recovered at once", l)
	}
	if len(r.Unrecov) != 1 || r.Unrecov[0] != "w1" {
		t.Errorf("not recovered %v, want w1 (it stopped at 4s)", r.Unrecov)
	}
}

func TestPlantedDuplicate(t *testing.T) {
	dir := t.TempDir()
	a, b := cleanRun(t, dir)
	// w2, generating under machine ID 3 after the hand-off, emits a value
	// w1 emitted under it.
	b.w.ID(3, "counter", false, value(at(time.Millisecond).UnixMilli(), 3, 5), at(6*time.Second), at(6*time.Second+time.Microsecond))
	r := run(t, []string{a.close(), b.close()})
	if r.OK || r.Duplicates != 1 || len(r.DuplicateExamples) != 1 {
		t.Fatalf("duplicates %d (%+v), want 1", r.Duplicates, r.DuplicateExamples)
	}
	d := r.DuplicateExamples[0]
	if procs := d.A.Proc + "," + d.B.Proc; procs != "w1,w2" || d.Kind != "counter" {
		t.Errorf("duplicate %+v, want w1's counter value repeated by w2", d)
	}
	if len(r.RangeOverlaps) == 0 {
		t.Errorf("no range overlap reported for w2's value below w1's")
	}
	if r.OutOfWindow != 0 || len(r.Overlaps) != 0 {
		t.Errorf("out of window %d, overlaps %v: want none", r.OutOfWindow, r.Overlaps)
	}
}

func TestDuplicateAcrossShardsAndFiles(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 8 {
		w := newWorker(t, dir, "w"+string(rune('a'+i)), i)
		w.event("acquired", i, 0)
		w.draws(0, 2*time.Second, time.Millisecond)
		if i == 5 {
			// The same value again, far from the first in its file.
			w.w.ID(i, "counter", false, value(at(0).UnixMilli(), i, 7), at(2*time.Second), at(2*time.Second))
		}
		w.event("released", i, 2*time.Second+time.Millisecond)
		files = append(files, w.close())
	}
	r := run(t, files)
	if r.Shards < 16 || r.Duplicates != 1 || r.DuplicateExamples[0].A.Proc != "wf" || r.DuplicateExamples[0].B.Proc != "wf" {
		t.Fatalf("shards %d, duplicates %d %+v: want 1 by wf", r.Shards, r.Duplicates, r.DuplicateExamples)
	}
}

func TestOverlap(t *testing.T) {
	dir := t.TempDir()
	a := newWorker(t, dir, "w1", 100)
	b := newWorker(t, dir, "w2", 200)
	// w1 holds machine ID 3 and keeps generating with no loss recorded
	// (say, resumed after SIGSTOP without noticing its lease ended)
	// while w2 holds the same machine ID. Their values do not collide:
	// only the times overlap.
	a.event("acquired", 3, 0)
	a.draws(0, 8*time.Second, 10*time.Millisecond)
	b.event("acquired", 3, 5*time.Second)
	b.next = value(at(20*time.Second).UnixMilli(), 3, 0)
	b.scnt = 1
	b.draws(5*time.Second, 10*time.Second, 10*time.Millisecond)
	b.event("released", 3, 10*time.Second)
	r := run(t, []string{a.close(), b.close()})
	if r.OK || len(r.Overlaps) != 1 || r.Overlaps[0].MachineID != 3 {
		t.Fatalf("overlaps %+v, want one on machine ID 3", r.Overlaps)
	}
	if r.Duplicates != 0 || r.OutOfWindow != 0 {
		t.Errorf("duplicates %d, out of window %d: want none", r.Duplicates, r.OutOfWindow)
	}
	// w2's sortable values (stamped 5s..8s) are below w1's last (8s).
	if len(r.RangeOverlaps) != 1 || r.RangeOverlaps[0].Kind != "sortable" {
		t.Errorf("range overlaps %+v, want w2's sortable values below w1's", r.RangeOverlaps)
	}
}

func TestSuspendedHolderDoesNotOverlap(t *testing.T) {
	dir := t.TempDir()
	a := newWorker(t, dir, "w1", 100)
	b := newWorker(t, dir, "w2", 200)
	// w1 stops generating at 3s (SIGSTOP) and records its loss only when
	// it resumes at 9s, after w2 took the machine ID at 5s: the windows
	// overlap but w1 generated nothing in w2's.
	a.event("acquired", 3, 0)
	a.draws(0, 3*time.Second, 10*time.Millisecond)
	a.event("lost", 3, 9*time.Second)
	b.event("acquired", 3, 5*time.Second)
	b.draws(5*time.Second, 10*time.Second, 10*time.Millisecond)
	b.event("released", 3, 10*time.Second)
	r := run(t, []string{a.close(), b.close(), runMark(t, dir, 10*time.Second)})
	if !r.OK {
		t.Fatalf("a suspended holder is reported: %+v", r)
	}
	// w1's window stays open through its suspension; its IDs stop at 3s.
	if l := r.Liveness[0]; l.HeldShare < 0.89 || l.HeldShare > 0.91 || l.Share < 0.29 || l.Share > 0.31 || l.LongestOutage < 6.9 {
		t.Errorf("w1 liveness %+v, want held 0.9, generating 0.3, longest outage 7s", l)
	}
	if len(r.Leaked) != 0 {
		t.Errorf("leaked %+v, want none (w2 released machine ID 3)", r.Leaked)
	}
}

func TestOutOfWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(w *worker)
	}{
		{"after lost", func(w *worker) {
			w.w.ID(3, "sortable", false, value(at(5*time.Second).UnixMilli(), 3, 1), at(5*time.Second), at(5*time.Second+time.Microsecond))
		}},
		{"before acquired", func(w *worker) {
			w.w.ID(3, "counter", false, value(at(0).UnixMilli(), 3, 8000), at(-time.Second), at(-time.Second+time.Microsecond))
		}},
		{"between disabled and renewed", func(w *worker) {
			w.w.ID(3, "counter", false, value(at(0).UnixMilli(), 3, 8001), at(1500*time.Millisecond), at(1500*time.Millisecond+time.Microsecond))
		}},
		{"under a machine ID not held", func(w *worker) {
			w.w.ID(4, "counter", false, value(at(0).UnixMilli(), 4, 1), at(time.Second), at(time.Second+time.Microsecond))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newWorker(t, dir, "w1", 100)
			w.event("acquired", 3, 0)
			w.draws(0, time.Second, 10*time.Millisecond)
			w.event("disabled", 3, time.Second)
			w.event("renewed", 3, 2*time.Second)
			w.draws(2*time.Second, 4*time.Second, 10*time.Millisecond)
			w.event("lost", 3, 4*time.Second)
			tc.plant(w)
			r := run(t, []string{w.close()})
			if r.OK || r.OutOfWindow != 1 || len(r.OutOfWindowEx) != 1 {
				t.Fatalf("out of window %d %+v, want 1", r.OutOfWindow, r.OutOfWindowEx)
			}
			if r.Duplicates != 0 || r.MachineMismatch != 0 {
				t.Errorf("duplicates %d, mismatches %d: want none", r.Duplicates, r.MachineMismatch)
			}
		})
	}
}

func TestLateRenewalReopensWindow(t *testing.T) {
	dir := t.TempDir()
	w := newWorker(t, dir, "w1", 100)
	w.event("acquired", 3, 0)
	w.draws(0, time.Second, 10*time.Millisecond)
	// The factory's own deadline stopped it at 1s; the renewal sent at
	// 0.9s came back late and re-enabled it. Its event (counted from the
	// request) follows the disabled record.
	w.event("disabled", 3, time.Second)
	w.event("renewed", 3, 900*time.Millisecond)
	w.draws(time.Second+time.Millisecond, 2*time.Second, 10*time.Millisecond)
	w.event("released", 3, 2*time.Second)
	if r := run(t, []string{w.close()}); !r.OK {
		t.Fatalf("late renewal reported: %+v", r)
	}
}

func TestMachineMismatch(t *testing.T) {
	dir := t.TempDir()
	w := newWorker(t, dir, "w1", 100)
	w.event("acquired", 3, 0)
	w.w.ID(3, "counter", false, value(at(0).UnixMilli(), 9, 0), at(time.Millisecond), at(time.Millisecond))
	w.event("released", 3, time.Second)
	if r := run(t, []string{w.close()}); r.OK || r.MachineMismatch != 1 {
		t.Fatalf("mismatches %d, want 1", r.MachineMismatch)
	}
}

func TestLeaked(t *testing.T) {
	dir := t.TempDir()
	w := newWorker(t, dir, "w1", 100)
	w.event("acquired", 3, 0)
	w.draws(0, time.Second, 10*time.Millisecond)
	r := run(t, []string{w.close()})
	if !r.OK || len(r.Leaked) != 1 || r.Leaked[0].MachineID != 3 {
		t.Fatalf("ok %v, leaked %+v: want machine ID 3 (never released)", r.OK, r.Leaked)
	}
}

func TestTruncatedTailAndMalformed(t *testing.T) {
	dir := t.TempDir()
	w := newWorker(t, dir, "w1", 100)
	w.event("acquired", 3, 0)
	w.draws(0, time.Second, 10*time.Millisecond)
	name := w.close()
	f, _ := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"proc":"w1","pid":100,"machine_id":3,"kind":"coun`)
	f.Close()
	r := run(t, []string{name})
	if !r.OK || r.TruncatedTails != 1 {
		t.Fatalf("ok %v, truncated %d: a killed writer's partial last line is not a failure", r.OK, r.TruncatedTails)
	}
	b, _ := os.ReadFile(name)
	lines := strings.SplitAfter(string(b), "\n")
	lines[5] = "{\"proc\":\"w1\",\"id\":\n"
	os.WriteFile(name, []byte(strings.Join(lines, "")), 0o644)
	if r := run(t, []string{name}); r.OK || r.Malformed != 1 {
		t.Fatalf("ok %v, malformed %d: want a failure for a broken line inside the file", r.OK, r.Malformed)
	}
}

func TestParseSlowPath(t *testing.T) {
	var r rec
	line := []byte(`{"proc":"w\u0031","pid":7,"machine_id":2,"id":"42","kind":"counter","t":5,"extra":{"a":[1,2]}}`)
	if err := parse(line, &r); err != nil || string(r.proc) != "w1" || r.pid != 7 || string(r.id) != "42" || r.t != 5 {
		t.Fatalf("parse: %v %+v", err, r)
	}
	if err := parse([]byte(`{"proc":"w1",}`), &r); err == nil {
		t.Fatal("trailing comma accepted")
	}
}

// TestHandOffs: machine ID 3 goes from w1 to w2 (a hand-off) and machine
// ID 9 from one incarnation of w3 to the next (a retake); both are
// checked and clean.
func TestHandOffs(t *testing.T) {
	dir := t.TempDir()
	a, b := cleanRun(t, dir)
	c1 := newWorker(t, dir, "w3", 300)
	c1.event("acquired", 9, 0)
	c1.draws(time.Millisecond, 2*time.Second, 10*time.Millisecond)
	c2 := newWorker(t, dir, "w3", 301)
	c2.event("acquired", 9, 3*time.Second)
	c2.next = c1.next + 1000
	c2.draws(3*time.Second, 4*time.Second, 10*time.Millisecond)
	c2.event("released", 9, 4*time.Second)
	r := run(t, []string{a.close(), b.close(), c1.close(), c2.close(), runMark(t, dir, 10*time.Second)})
	if !r.OK || r.HandOffs != 1 || r.Retakes != 1 || r.HandOffsChecked != 2 || len(r.HandOffViolations) != 0 {
		t.Fatalf("ok %v, hand-offs %d, retakes %d, checked %d, violations %+v: want a clean run, 1 hand-off, 1 retake, 2 checked",
			r.OK, r.HandOffs, r.Retakes, r.HandOffsChecked, r.HandOffViolations)
	}
}

// TestHandOffBelowPrevious: w2 takes machine ID 3 after w1 released it
// and starts its counter below w1's last value (a hand-off guard that
// did not hold): no value repeats and the windows do not overlap, but the
// hand-off is reported.
func TestHandOffBelowPrevious(t *testing.T) {
	dir := t.TempDir()
	a := newWorker(t, dir, "w1", 100)
	b := newWorker(t, dir, "w2", 200)
	a.event("acquired", 3, 0)
	a.next = value(at(0).UnixMilli(), 3, 4000)
	a.draws(0, 2*time.Second, 10*time.Millisecond)
	a.event("released", 3, 2*time.Second)
	b.event("acquired", 3, 3*time.Second)
	b.next = value(at(0).UnixMilli(), 3, 0)
	b.scnt = 1
	b.draws(3*time.Second, 4*time.Second, 10*time.Millisecond)
	b.event("released", 3, 4*time.Second)
	r := run(t, []string{a.close(), b.close()})
	if r.OK || r.HandOffs != 1 || len(r.HandOffViolations) != 1 {
		t.Fatalf("ok %v, hand-offs %d, violations %+v: want one violation", r.OK, r.HandOffs, r.HandOffViolations)
	}
	if v := r.HandOffViolations[0]; v.MachineID != 3 || !strings.Contains(v.Detail, "first counter ID") {
		t.Errorf("violation %+v, want w2's first counter ID below w1's last on machine ID 3", v)
	}
	if r.Duplicates != 0 || len(r.Overlaps) != 0 {
		t.Errorf("duplicates %d, overlaps %v: want none", r.Duplicates, r.Overlaps)
	}
}

// lease writes an acquired or renewed event sent at d, answered 5ms later,
// for a lease of l, nine tenths of it usable.
func (w *worker) lease(kind string, mid int, d, l time.Duration, detail string) {
	w.mid = mid
	w.w.Lease(mid, kind, at(d), at(d+5*time.Millisecond), l, l*9/10, detail)
}

// TestEarlyClaim: w1 renews machine ID 3 at 2s for 6s (its lease runs to
// 8s at least) and then stops generating (a pause, a partition); w2's
// claim granted at 7s is reported although neither generated at once,
// while one granted after 8s, one after w1 released the ID, one after a
// forced free of w1, and w1's own reclaim are not.
func TestEarlyClaim(t *testing.T) {
	cases := []struct {
		name    string
		claimAt time.Duration
		release bool
		forced  bool
		reclaim bool
		early   bool
		freed   time.Duration // a detached release logged then (0: none)
		next    string        // w1's next incarnation (pid 101): "release" at 5s, or "reclaim" at 4s and hold
		failed  time.Duration // a release sent then that failed, outcome unknown (0: none)
	}{
		{"granted while held", 7 * time.Second, false, false, false, true, 0, "", 0},
		{"granted after expiry", 8 * time.Second, false, false, false, false, 0, "", 0},
		{"after a release", 7 * time.Second, true, false, false, false, 0, "", 0},
		{"after a forced free", 7 * time.Second, false, true, false, false, 0, "", 0},
		{"a reclaim", 7 * time.Second, false, false, true, false, 0, "", 0},
		{"after a detached release", 7 * time.Second, false, false, false, false, 7*time.Second + 300*time.Millisecond, "", 0},
		{"a detached release long after", 7 * time.Second, false, false, false, true, 9 * time.Second, "", 0},
		{"released by the next incarnation", 7 * time.Second, false, false, false, false, 0, "release", 0},
		{"reclaimed and held by the next incarnation", 7 * time.Second, false, false, false, true, 0, "reclaim", 0},
		{"after a release of unknown outcome", 7 * time.Second, false, false, false, false, 0, "", 6 * time.Second},
		{"a release of unknown outcome sent after the grant", 7 * time.Second, false, false, false, true, 0, "", 7*time.Second + 100*time.Millisecond},
		{"by the next incarnation, a release of unknown outcome", 7 * time.Second, false, false, false, false, 0, "failed", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := newWorker(t, dir, "w1", 100)
			b := newWorker(t, dir, "w2", 200)
			a.lease("acquired", 3, 0, 6*time.Second, "acquire")
			a.draws(10*time.Millisecond, time.Second, 10*time.Millisecond)
			a.lease("renewed", 3, 2*time.Second, 6*time.Second, "")
			if tc.release {
				a.event("released", 3, 3*time.Second)
			}
			if tc.freed != 0 {
				a.event("freed", 3, tc.freed)
			}
			if tc.failed != 0 {
				a.event(soakrec.ReleaseFailed, 3, tc.failed)
			}
			detail := "acquire"
			if tc.reclaim {
				detail = "reclaim"
			}
			b.lease("acquired", 3, tc.claimAt, 6*time.Second, detail)
			b.next = a.next + 1000
			b.scnt = 1
			b.draws(tc.claimAt+10*time.Millisecond, tc.claimAt+time.Second, 10*time.Millisecond)
			files := []string{a.close(), b.close()}
			if tc.next != "" {
				n := newWorker(t, dir, "w1", 101)
				switch tc.next {
				case "release":
					n.event("released", 3, 5*time.Second)
				case "failed":
					n.event(soakrec.ReleaseFailed, 3, 5*time.Second)
				default:
					n.lease("acquired", 3, 4*time.Second, 6*time.Second, "reclaim")
				}
				files = append(files, n.close())
			}
			if tc.forced {
				p := filepath.Join(dir, "faults.jsonl")
				os.WriteFile(p, soakrec.Line("fault", "forcefree", "target", "w1", "t", at(5*time.Second), "end", at(5*time.Second+50*time.Millisecond)), 0o644)
				files = append(files, p)
			}
			r := run(t, files)
			if got := len(r.EarlyClaims) > 0; got != tc.early || r.OK == tc.early {
				t.Fatalf("early claims %+v, ok %v; want early %v", r.EarlyClaims, r.OK, tc.early)
			}
			if tc.early && !strings.Contains(r.EarlyClaims[0].Detail, "before w1(pid 10") {
				t.Errorf("detail %q", r.EarlyClaims[0].Detail)
			}
			if !tc.reclaim && r.ClaimsChecked != 2 {
				t.Errorf("claims checked %d, want 2", r.ClaimsChecked)
			}
		})
	}
}

// TestPastWindow: w1 holds machine ID 3 on a 6s lease renewed at 2s (its
// usable window ends at 2s + 5.4s = 7.4s). A draw whose call began after
// that (a process resumed past its deadline, a window counted from a
// reply, no margin) fails the check, whatever its kind; one within the
// window, one within a clock lag the process recorded, and one whose call
// ended after a later renewal was sent pass.
func TestPastWindow(t *testing.T) {
	cases := []struct {
		name   string
		kind   string
		at     time.Duration
		offset time.Duration // w1's factory clock offset from 1s on
		renew  bool          // a renewal sent at 7.3s
		past   bool
	}{
		{"counter after a suspension", "counter", 11 * time.Second, 0, false, true},
		{"sortable after a suspension", "sortable", 11 * time.Second, 0, false, true},
		{"counter past the margin", "counter", 7400*time.Millisecond + Slack + time.Millisecond, 0, false, true},
		{"within the window", "counter", 7400 * time.Millisecond, 0, false, false},
		{"within Slack", "sortable", 7400*time.Millisecond + Slack, 0, false, false},
		{"within the clock's lag", "counter", 7700 * time.Millisecond, -300 * time.Millisecond, false, false},
		{"beyond the clock's lag", "counter", 7800 * time.Millisecond, -300 * time.Millisecond, false, true},
		{"a clock ahead allows nothing", "counter", 7500 * time.Millisecond, 300 * time.Millisecond, false, true},
		{"after a renewal", "counter", 8 * time.Second, 0, true, false},
		{"a step back during the call", "counter", 7700 * time.Millisecond, 0, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := newWorker(t, dir, "w1", 100)
			a.lease("acquired", 3, 0, 6*time.Second, "acquire")
			if tc.offset != 0 {
				a.w.ClockOffset(at(time.Second), tc.offset)
			}
			a.next = value(at(0).UnixMilli(), 3, 0)
			a.draws(10*time.Millisecond, 2*time.Second, 10*time.Millisecond)
			a.lease("renewed", 3, 2*time.Second, 6*time.Second, "")
			if tc.renew {
				a.lease("renewed", 3, 7300*time.Millisecond, 6*time.Second, "")
			}
			v := a.next
			if tc.kind == "sortable" {
				v = value(at(tc.at).UnixMilli(), 3, 0)
			}
			if tc.name == "a step back during the call" {
				// Recorded between the call's start and end: the
				// factory may have drawn on either clock.
				a.w.ClockOffset(at(tc.at+500*time.Nanosecond), -300*time.Millisecond)
			}
			a.w.ID(3, tc.kind, false, v, at(tc.at), at(tc.at+time.Microsecond))
			a.event("released", 3, 12*time.Second)
			r := run(t, []string{a.close()})
			if got := r.PastWindow > 0; got != tc.past || r.OK == tc.past {
				t.Fatalf("past window %d %+v, ok %v; want past %v", r.PastWindow, r.PastWindowEx, r.OK, tc.past)
			}
			if tc.past && (r.PastWindow != 1 || !strings.Contains(r.PastWindowEx[0].Detail, "after the usable window")) {
				t.Errorf("past window %d %+v, want the one draw", r.PastWindow, r.PastWindowEx)
			}
		})
	}
}

// TestPIDReused: two incarnations of w1 that the kernel gave the same PID
// (a long run wraps the PID space) are two processes, told apart by their
// record files: machine ID 4 passes from the first (killed: no event ends
// its holding) to w2 and on to the second, with no overlap and each
// hand-off above the last.
func TestPIDReused(t *testing.T) {
	dir := t.TempDir()
	first := newWorker(t, dir, "w1", 500)
	first.event("acquired", 4, 0)
	first.draws(0, time.Second, 10*time.Millisecond)
	b := newWorker(t, dir, "w2", 600)
	b.event("acquired", 4, 2*time.Second)
	b.next = first.next + 1000
	b.draws(2*time.Second, 3*time.Second, 10*time.Millisecond)
	b.event("released", 4, 3*time.Second)
	firstFile := first.close()
	if err := os.Rename(firstFile, filepath.Join(dir, "w1.1.jsonl")); err != nil {
		t.Fatal(err)
	}
	second := newWorker(t, dir, "w1", 500) // the same PID, a new incarnation
	second.event("acquired", 4, 4*time.Second)
	second.next = b.next + 1000
	second.draws(4*time.Second, 5*time.Second, 10*time.Millisecond)
	second.event("released", 4, 5*time.Second)
	r := run(t, []string{filepath.Join(dir, "w1.1.jsonl"), b.close(), second.close()})
	if !r.OK || len(r.Overlaps) != 0 || len(r.RangeOverlaps) != 0 || len(r.HandOffViolations) != 0 || r.HandOffs != 2 {
		t.Fatalf("ok %v, overlaps %v, range overlaps %v, hand-off violations %v, hand-offs %d: want a clean run with 2 hand-offs",
			r.OK, r.Overlaps, r.RangeOverlaps, r.HandOffViolations, r.HandOffs)
	}
}
