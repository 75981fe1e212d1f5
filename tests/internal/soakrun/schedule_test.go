package soakrun

import (
	"reflect"
	"testing"
	"time"
)

func TestPlanReplays(t *testing.T) {
	kinds := DefaultFaults("postgres")
	a := MakePlan(7, 4, 10*time.Minute, 6*time.Second, 30*time.Second, kinds)
	b := MakePlan(7, 4, 10*time.Minute, 6*time.Second, 30*time.Second, kinds)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two schedules")
	}
	c := MakePlan(8, 4, 10*time.Minute, 6*time.Second, 30*time.Second, kinds)
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
			if f.Offset < -MaxClockOffset || f.Offset > MaxClockOffset {
				t.Errorf("clock offset %v beyond %v", f.Offset, MaxClockOffset)
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
	for _, f := range MakePlan(1, 4, 10*time.Minute, 3*time.Second, 30*time.Second, DefaultFaults("sqlite")).Faults {
		switch f.Kind {
		case Partition, Blackhole, Stall, LostReplies, CoordRestart:
			t.Errorf("network fault %v on SQLite", f)
		}
	}
}
