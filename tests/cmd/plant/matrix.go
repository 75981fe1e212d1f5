package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// firstFailure is the line of log that says best why a check failed: a
// test's failure, a panic, a soak finding, or else the last line.
func firstFailure(log string) string {
	f, err := os.Open(log)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var last, best string
	rank := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		last = line
		r := 0
		switch {
		case strings.HasPrefix(line, "EARLY CLAIM"), strings.HasPrefix(line, "HAND-OFF"), strings.HasPrefix(line, "OVERLAP"),
			strings.HasPrefix(line, "DUPLICATE"), strings.HasPrefix(line, "RANGE"), strings.HasPrefix(line, "OUT OF WINDOW"), strings.HasPrefix(line, "PAST WINDOW"):
			r = 5
		case strings.HasPrefix(line, "panic:"), strings.Contains(line, "test timed out"):
			r = 4
		case strings.Contains(line, "_test.go:") || strings.Contains(line, "VIOLATION") || strings.Contains(line, "duplicate") || strings.Contains(line, "overlap"):
			r = 3
		case strings.HasPrefix(line, "--- FAIL"):
			r = 2
		case strings.HasPrefix(line, "FAIL"), strings.HasPrefix(line, "soak:"):
			r = 1
		}
		if r > rank {
			rank, best = r, line
		}
	}
	if best == "" {
		best = last
	}
	if len(best) > 160 {
		best = best[:160] + "..."
	}
	return best
}

// soakInvalid reports whether the soak's log says the run proved nothing
// (no ID generated, or no hand-off in a contention run: exit status 3).
func soakInvalid(log string) bool {
	data, err := os.ReadFile(log)
	return err == nil && strings.Contains(string(data), "\nsoak: INVALID: ")
}

var handoffsRE = regexp.MustCompile(`^\s*(\d+) hand-offs`)

// soakHandoffs is the number of hand-offs the soak's summary in log
// counts, or "?".
func soakHandoffs(log string) string {
	data, err := os.ReadFile(log)
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m := handoffsRE.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return "?"
}

// matrix renders the kill matrix as a Markdown table.
func matrix(rows []row, c config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Kill matrix (seed %d, soak %v)\n\n", c.seed, c.soakFor)
	b.WriteString("| bug | class | soak on | fast | targeted | contention soak (hand-offs) | caught by |\n|---|---|---|---|---|---|---|\n")
	caught, total := 0, 0
	soakCaught, contested, blind := 0, 0, 0
	for _, r := range rows {
		if r.bug.Name != "(none)" {
			total++
		}
		if r.stale != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | stale: %s | | | **not run** |\n", r.bug.Name, r.bug.Class, r.bug.Coordinator, r.stale)
			continue
		}
		var by []string
		cells := make([]string, 3)
		for i, k := range []string{"fast", "targeted", "soak"} {
			o, ok := r.checks[k]
			switch {
			case !ok:
				cells[i] = "-"
			case o.na:
				cells[i] = "n/a"
			case o.invalid:
				cells[i] = fmt.Sprintf("**invalid** (%v: %s)", o.took, o.why)
			case o.hung:
				cells[i] = fmt.Sprintf("**caught** (hung, %v)", o.took)
				by = append(by, k)
			case o.failed:
				cells[i] = fmt.Sprintf("**caught** (%v)", o.took)
				by = append(by, k)
			default:
				cells[i] = fmt.Sprintf("passed (%v)", o.took)
			}
			if k == "soak" && ok {
				cells[i] += fmt.Sprintf(" (%s)", o.handoffs)
				if !o.failed && !o.hung && r.bug.SoakBlind != "" {
					cells[i] += "; blind: " + r.bug.SoakBlind
				}
			}
		}
		verdict := strings.Join(by, ", ")
		switch {
		case r.bug.Name == "(none)" && verdict == "":
			verdict = "nothing (as it should)"
		case verdict == "" && r.bug.Equivalent != "":
			verdict = "equivalent: " + r.bug.Equivalent
		case verdict == "" && r.bug.Open != "":
			verdict = "**SURVIVED** (open: " + r.bug.Open + ")"
		case verdict == "":
			verdict = "**SURVIVED**"
		}
		if len(by) > 0 && r.bug.Name != "(none)" {
			caught++
		}
		if o, ok := r.checks["soak"]; ok && r.bug.Class.Contested() {
			contested++
			switch {
			case o.failed || o.hung:
				soakCaught++
			case r.bug.SoakBlind != "":
				blind++
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.bug.Name, r.bug.Class, r.bug.Coordinator, cells[0], cells[1], cells[2], verdict)
	}
	fmt.Fprintf(&b, "\n%d of %d bugs caught.\n", caught, total)
	if contested > 0 {
		fmt.Fprintf(&b, "The contention soak caught %d of the %d bugs of contested classes it ran on (claim, renew, free, expiry, handoff); %d more are argued soak-blind.\n", soakCaught, contested, blind)
	}
	return b.String()
}
