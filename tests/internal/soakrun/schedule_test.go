package soakrun

import (
	"reflect"
	"testing"
	"time"
)

func TestPlanReplays(t *testing.T) {
	kinds := DefaultFaults("postgres")
	const leaseDur = 30 * time.Second
	a := MakePlan(7, 4, 0, 10*time.Minute, 6*time.Second, leaseDur, kinds)
	b := MakePlan(7, 4, 0, 10*time.Minute, 6*time.Second, 30*time.Second, kinds)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two schedules")
	}
	c := MakePlan(8, 4, 0, 10*time.Minute, 6*time.Second, 30*time.Second, kinds)
	if reflect.DeepEqual(a.Faults, c.Faults) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
	if len(a.Faults) < 40 {
		t.Fatalf("%d faults in 10 minutes at a mean gap of 6s", len(a.Faults))
	}
	seen := map[string]bool{}
	busy := map[string]time.Duration{}
	for _, f := range a.Faults {
		seen[f.Kind] = true
		if f.At < 8*time.Second || f.At >= 10*time.Minute-20*time.Second {
			t.Errorf("fault %v outside the fault window", f)
		}
		if f.At < busy[f.Target] {
			t.Errorf("fault %v starts while %s is under another", f, f.Target)
		}
		busy[f.Target] = f.At + f.For
		switch f.Kind {
		case SIGSTOP:
			if f.For <= 30*time.Second {
				t.Errorf("SIGSTOP %v not longer than the lease", f.For)
			}
		case ClockStep:
			if c := ClockOffsetCap(leaseDur); f.Offset < -c || f.Offset > c {
				t.Errorf("clock offset %v beyond %v", f.Offset, c)
			}
		case CoordRestart:
			if f.Target != "coordinator" {
				t.Errorf("coordinator fault on %s", f.Target)
			}
		}
	}
	for _, k := range kinds {
		if !seen[k] {
			t.Errorf("no %s fault in 10 minutes", k)
		}
	}
}

func TestSQLiteHasNoNetworkFaults(t *testing.T) {
	for _, f := range MakePlan(1, 4, 0, 10*time.Minute, 3*time.Second, 30*time.Second, DefaultFaults("sqlite")).Faults {
		switch f.Kind {
		case Partition, Blackhole, Stall, LostReplies, CoordRestart:
			t.Errorf("network fault %v on SQLite", f)
		}
	}
}

// TestClockOffsetsInsideTheMargin: with short leases every offset, initial
// or stepped, stays 100ms inside the safety margin (a tenth of the lease),
// and the offsets come in two groups far enough apart to expose a missing
// hand-off guard.
func TestClockOffsetsInsideTheMargin(t *testing.T) {
	for _, leaseDur := range []time.Duration{3 * time.Second, 6 * time.Second, 30 * time.Second} {
		c := ClockOffsetCap(leaseDur)
		if want := min(MaxClockOffset, leaseDur/10-100*time.Millisecond); leaseDur < 30*time.Second && c != want {
			t.Errorf("ClockOffsetCap(%v) = %v, want %v", leaseDur, c, want)
		}
		p := MakePlan(3, 8, 0, 30*time.Minute, 3*time.Second, leaseDur, []string{ClockStep})
		offs := p.Offsets
		for _, f := range p.Faults {
			offs = append(offs, f.Offset)
		}
		ahead, behind := 0, 0
		for _, o := range offs {
			switch {
			case o > c || o < -c:
				t.Errorf("lease %v: offset %v beyond %v", leaseDur, o, c)
			case o >= c*9/10:
				ahead++
			case o <= -c*9/10:
				behind++
			default:
				t.Errorf("lease %v: offset %v within 9/10 of %v", leaseDur, o, c)
			}
		}
		if ahead == 0 || behind == 0 {
			t.Errorf("lease %v: %d offsets ahead, %d behind", leaseDur, ahead, behind)
		}
		for i, o := range p.Offsets {
			if (o > 0) != (i%2 == 0) {
				t.Errorf("lease %v: initial offsets %v: want ahead and behind in turn", leaseDur, p.Offsets)
				break
			}
		}
	}
}

// TestSharedIDsOffsetsApart: with -ids, the slots a guard run maps to one
// machine ID (i and i+ids) start on opposite sides of the true clock, so
// each hand-off between them crosses the widest gap.
func TestSharedIDsOffsetsApart(t *testing.T) {
	for _, c := range []struct{ procs, ids int }{{4, 2}, {6, 3}, {8, 2}, {5, 2}} {
		p := MakePlan(9, c.procs, c.ids, 2*time.Minute, 3*time.Second, 6*time.Second, []string{SIGKILL})
		for i := range c.procs - c.ids {
			if a, b := p.Offsets[i], p.Offsets[i+c.ids]; (a > 0) == (b > 0) {
				t.Errorf("procs %d, ids %d: slots %d and %d share machine ID %d with offsets %v and %v, want opposite signs",
					c.procs, c.ids, i, i+c.ids, i%c.ids, a, b)
			}
		}
	}
}

// TestReleaseDeletes: the seed chooses the Redis release mode, and only
// the Redis coordinators have one.
func TestReleaseDeletes(t *testing.T) {
	for _, c := range []struct {
		coord string
		seed  uint64
		want  bool
	}{{"redis8", 25, true}, {"redis8", 42, false}, {"redis7", 1, true}, {"valkey9", 3, true}, {"postgres", 25, false}, {"redis-cluster", 25, false}} {
		if got := ReleaseDeletes(c.coord, c.seed); got != c.want {
			t.Errorf("ReleaseDeletes(%s, %d) = %v, want %v", c.coord, c.seed, got, c.want)
		}
	}
}
