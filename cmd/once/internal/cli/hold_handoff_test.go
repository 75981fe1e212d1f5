package cli

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
)

// prevAhead is how far the previous holder's clock ran ahead of the
// coordinator's in the hand-off tests: inside the 1 s the lease manager's
// default HandoffSkew absorbs.
const prevAhead = 800 * time.Millisecond

// handoffRow is the one machine ID the hand-off tests leave free.
const handoffRow = 7

// handoffTable prepares a table whose only free row, handoffRow, was
// released 50 ms ago (coordinator's clock) by a holder whose clock runs
// prevAhead ahead: that holder may have emitted every sortable value of
// machine ID handoffRow up to the returned bound.
func handoffTable(t *testing.T, setup func(t *testing.T) *sqlTable) (st *sqlTable, prevLast time.Time) {
	st = setup(t)
	st.claim(t, 512)
	released := time.Now().Add(-50 * time.Millisecond)
	st.setExpiry(t, handoffRow, released)
	return st, released.Add(prevAhead)
}

// repeats counts the sortable values (unsigned decimal lines) of gen whose
// timestamp is at or below prevLast, the last millisecond the previous
// holder may have used: each may repeat one of its values. It also checks
// every value carries machine ID handoffRow.
func repeats(t *testing.T, lines []string, prevLast time.Time) (n int, first time.Time) {
	t.Helper()
	if len(lines) == 0 {
		t.Fatal("gen printed nothing")
	}
	last := prevLast.Truncate(time.Millisecond)
	for i, l := range lines {
		v, err := strconv.ParseUint(l, 10, 64)
		if err != nil {
			t.Fatalf("gen line %q: %v", l, err)
		}
		p := nonce.Split64(v, time.Time{})
		if p.MachineID != handoffRow {
			t.Fatalf("gen value %s has machine ID %d, want %d", l, p.MachineID, handoffRow)
		}
		if i == 0 {
			first = p.Time
		}
		if !p.Time.After(last) {
			n++
		}
	}
	return n, first
}

// genArgs makes 20000 sortable values (a few milliseconds' worth).
var genArgs = []string{"gen", "--kind", "sortable", "-n", "20000", "--to", "unsigned"}

// TestLeaseHoldHandoffWait: "machine_id=N" is printed only once a value
// with machine ID N may be emitted. The previous holder of the only free
// row released it 50 ms ago with its clock 800 ms ahead; "once gen" run on
// the printed ID the moment it appears must not make any value that holder
// may have made. Hold and gen run in-process, so that no process start-up
// hides an early print.
func TestLeaseHoldHandoffWait(t *testing.T) {
	for _, c := range sqlTables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, prevLast := handoffTable(t, c.setup)
			pr, pw := io.Pipe()
			var errb strings.Builder
			done := make(chan int, 1)
			go func() {
				done <- Run(slices.Concat([]string{"lease", "hold"}, st.flags, shortLease, []string{"--for", "2s"}), strings.NewReader(""), pw, &errb)
				pw.Close()
			}()
			sc := bufio.NewScanner(pr)
			if !sc.Scan() {
				t.Fatalf("hold exited %d without a machine ID; stderr: %s", <-done, errb.String())
			}
			printed := time.Now()
			id, err := parseMachineID(sc.Text())
			if err != nil {
				t.Fatal(err)
			}
			r := cli("", append(genArgs, "--machine-id", strconv.Itoa(id))...)
			for sc.Scan() {
			}
			if code := <-done; code != 0 {
				t.Fatalf("hold: exit %d, stderr %s", code, errb.String())
			}
			if id != handoffRow {
				t.Fatalf("hold took machine ID %d, want the only free one, %d", id, handoffRow)
			}
			if r.code != 0 {
				t.Fatalf("gen: %v", r)
			}
			n, first := repeats(t, r.lines(), prevLast)
			if n > 0 {
				t.Errorf("machine_id=%d printed %v before the previous holder's last possible timestamp; gen then made %d of %d values that holder may have made (first at %v, %v early)",
					id, prevLast.Sub(printed).Round(time.Millisecond), n, len(r.lines()), first.Format("15:04:05.000"), prevLast.Sub(first))
			}
		})
	}
}

// TestLeaseHoldExecHandoffWait: with "-- CMD", CMD starts only after the
// hand-off wait: "once gen" reading ONCE_MACHINE_ID makes none of the
// previous holder's values, and hold exits with gen's status.
func TestLeaseHoldExecHandoffWait(t *testing.T) {
	for _, c := range sqlTables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, prevLast := handoffTable(t, c.setup)
			r := runBin(t, slices.Concat([]string{"lease", "hold"}, st.flags, shortLease, []string{"--", binary(t)}, genArgs)...)
			if r.code != 0 {
				t.Fatalf("hold -- once gen: %v", r)
			}
			if n, first := repeats(t, r.lines(), prevLast); n > 0 {
				t.Errorf("gen under hold made %d of %d values the previous holder may have made (first at %v, %v early)",
					n, len(r.lines()), first.Format("15:04:05.000"), prevLast.Sub(first))
			}
		})
	}
}
