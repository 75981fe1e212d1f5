package soakreport

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/tests/internal/soakcheck"
	"github.com/once-go/once/tests/internal/soakrun"
)

func sample() Report {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	o := &soakrun.Outcome{
		Config: soakrun.Config{Coordinator: "postgres", Procs: 2, Duration: time.Minute, Seed: 42, Rate: 100, LeaseDuration: 30 * time.Second, RenewInterval: 12 * time.Second},
		Plan:   soakrun.Plan{Seed: 42, Faults: []soakrun.Fault{{At: 10 * time.Second, Kind: soakrun.Partition, Target: "w2", For: 5 * time.Second}}},
		Start:  t0, End: t0.Add(time.Minute),
		Exits: map[string][]soakrun.Exit{"w1": {{Inc: 1, PID: 7, At: t0.Add(time.Minute), Status: "exit 0", Cause: "end of run"}}},
	}
	o.Applied = []soakrun.Applied{{Fault: o.Plan.Faults[0], Start: t0.Add(10 * time.Second), End: t0.Add(15 * time.Second)}}
	o.Config.IDs = 2
	c := &soakcheck.Result{OK: false, IDs: 12000, Duplicates: 1, HandOffs: 5, Retakes: 1, HandOffsChecked: 4,
		HandOffViolations: []soakcheck.Overlap{{MachineID: 1, Kind: "hand-off", Detail: "w2's first counter ID 9 is not above w1's last 10"}},
		DuplicateExamples: []soakcheck.Dup{{Kind: "counter", ID: "42", A: soakcheck.Who{Proc: "w1", PID: 7}, B: soakcheck.Who{Proc: "w2", PID: 8}}},
		Liveness:          []soakcheck.Liveness{{Proc: "w1", Incarnations: 1, Share: 1, HeldShare: 1}, {Proc: "w2", Incarnations: 1, Share: 0.9, LongestOutage: 5, HeldShare: 0.95}},
		Holdings: []soakcheck.HoldingJS{
			{Proc: "w1", PID: 7, MachineID: 3, Start: t0.UnixNano(), Open: true, End: 1<<63 - 1, EndKind: "open", IDs: 6000},
			{Proc: "w2", PID: 8, MachineID: 9, Start: t0.UnixNano(), End: t0.Add(12 * time.Second).UnixNano(), EndKind: "lost", IDs: 1000},
		}}
	return Report{Outcome: o, Check: c}
}

func TestMarkdown(t *testing.T) {
	md := string(sample().Markdown())
	for _, want := range []string{"— FAIL", "| duplicate IDs | 1 |", "duplicate counter 42: w1 (pid 7", "| partition | 1 |", "| 10s | partition | w2 | 5s | 10s..15s |", "| w2 | 1 | 90.0% | 5.0 s | 95.0% |",
		"-procs 2 -ids 2 ", "| 5 (and 1 retakes by a restarted worker) |", "| 4 / 1 |", "hand-off on machine 1: w2's first counter ID 9"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestSVG(t *testing.T) {
	svg := sample().SVG()
	d := xml.NewDecoder(bytes.NewReader(svg))
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("timeline.svg is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// Background, two holdings, one fault.
	if rects != 4 {
		t.Errorf("%d rects, want 4", rects)
	}
	if !bytes.Contains(svg, []byte("w2 pid 8 machine 9: 12:00:00.000 .. 12:00:12.000 (lost), 1000 IDs")) {
		t.Errorf("the lost holding of w2 is not drawn:\n%s", svg)
	}
}
