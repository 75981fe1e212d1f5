package supervise

import (
	"syscall"
	"testing"
)

// TestParseCtl: the lines hold sends its supervisor, and the ones the
// supervisor ignores.
func TestParseCtl(t *testing.T) {
	for _, c := range []struct {
		line string
		want ctlMsg
		ok   bool
	}{
		{"deadline 123456789", ctlMsg{deadline: 123456789}, true},
		{"stop 15 lease of machine ID 3 lost", ctlMsg{sig: syscall.SIGTERM, reason: "lease of machine ID 3 lost"}, true},
		{"stop 2", ctlMsg{sig: syscall.SIGINT}, true},
		{"deadline 0", ctlMsg{}, false},
		{"deadline x", ctlMsg{}, false},
		{"stop 0", ctlMsg{}, false},
		{"stop -9", ctlMsg{}, false},
		{"frob 1", ctlMsg{}, false},
		{"", ctlMsg{}, false},
	} {
		got, ok := parseCtl(c.line)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("parseCtl(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestPidList: at most ten PIDs, then how many more.
func TestPidList(t *testing.T) {
	if got := pidList([]int{3, 1, 2}); got != "3, 1, 2" {
		t.Errorf("pidList = %q", got)
	}
	pids := make([]int, 12)
	for i := range pids {
		pids[i] = i + 1
	}
	if got := pidList(pids); got != "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more" {
		t.Errorf("pidList of 12 = %q", got)
	}
}
