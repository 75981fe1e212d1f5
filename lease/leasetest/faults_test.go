package leasetest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// faults maps each deliberate bug to the check that must catch it and a
// fragment of the failure message.
var faults = []struct {
	fault, check, message string
}{
	{"wrong-deterministic", "Deterministic", "Deterministic() = true"},
	{"short-ttl", "FirstAcquire", "shorter than the requested"},
	{"long-ttl", "FirstAcquire", "longer than the requested"},
	{"long-ttl", "Lifecycle", "before the old holder's reported TTL"},
	{"id-changes", "RenewKeepsMachineID", "changed the machine ID"},
	{"rotating-token", "RenewReplay", "Renew(machine ID"},
	{"ignores-context", "ContextCanceled", "with a canceled context succeeded"},
	{"lost-on-cancel", "ContextCanceled", "says nothing about ownership"},
	{"leaks-on-cancel", "Lifecycle", "in an empty namespace"},
	{"leaks-on-cancel", "AbortedAcquires", "in an empty namespace"},
	{"double-grant", "Lifecycle", "handed out twice"},
	{"double-grant", "ConcurrentExhaustion", "held by tasks"},
	{"conflict-when-full", "Lifecycle", "want driver.ErrExhausted"},
	{"check-then-set", "ConcurrentExhaustion", "held by tasks"},
	{"release-noop", "Lifecycle", "after releasing machine ID"},
	{"release-ignores-hold", "Lifecycle", "before its ReleaseHold"},
	{"renew-no-extend", "Lifecycle", "while its holder kept renewing"},
	{"renew-ignores-token", "Lifecycle", "Renew by the old holder after a takeover"},
	{"release-by-id", "Lifecycle", "after a stale Release"},
	{"broken-lost", "BrokenRetry", "want driver.ErrRetry"},
	{"det-different-ids", "SameIDAgain", "two contenders of a deterministic strategy"},
	{"list-no-holder", "List", "without the holder it recorded"},
	{"list-descending", "List", "is not ascending"},
	{"list-keeps-released", "List", "still listed"},
}

// TestSuiteCatchesFaults runs the suite against each faulty strategy in a
// child process (a failing suite fails its *testing.T) and checks that the
// expected check failed with the expected message.
func TestSuiteCatchesFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per fault in child processes")
	}
	outputs := make(map[string]string)
	for _, f := range faults {
		if _, done := outputs[f.fault]; done {
			continue
		}
		outputs[f.fault] = ""
		cmd := exec.Command(os.Args[0], "-test.run=^TestFaultyHelper$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "LEASETEST_FAULT="+f.fault)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("fault %s: the suite passed:\n%s", f.fault, out)
		}
		outputs[f.fault] = string(out)
	}
	for _, f := range faults {
		out := outputs[f.fault]
		if !strings.Contains(out, "--- FAIL: TestFaultyHelper/"+f.check+" ") {
			t.Errorf("fault %s: check %s did not fail:\n%s", f.fault, f.check, out)
		} else if !strings.Contains(out, f.message) {
			t.Errorf("fault %s: no failure message containing %q:\n%s", f.fault, f.message, out)
		}
	}
}

// TestFaultyHelper runs the suite on the faulty strategy named by
// LEASETEST_FAULT; TestSuiteCatchesFaults starts it.
func TestFaultyHelper(t *testing.T) {
	fault := os.Getenv("LEASETEST_FAULT")
	if fault == "" {
		t.Skip("helper of TestSuiteCatchesFaults")
	}
	det := fault == "det-different-ids"
	h := Harness{
		New: func(t *testing.T) func() driver.Strategy {
			m := NewMemory(64)
			n := 0
			return func() driver.Strategy {
				n++
				return &faulty{m: m, fault: fault, det: det, id: n}
			}
		},
		Broken:        func(t *testing.T) driver.Strategy { return Unreachable() },
		Deterministic: det,
		Capacity:      64,
		ShortTTL:      100 * time.Millisecond,
	}
	if fault == "broken-lost" {
		h.Broken = func(t *testing.T) driver.Strategy { return brokenLost{} }
	}
	Run(t, h)
}
