// Package soakreport writes a soak run's report: JSON, a Markdown summary
// and an SVG timeline (worker slots across, time along; lease holdings
// and faults drawn, as in a Jepsen timeline).
package soakreport

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/once-go/once/tests/internal/soakcheck"
	"github.com/once-go/once/tests/internal/soakrun"
)

// Report is a run and its check.
type Report struct {
	Outcome *soakrun.Outcome  `json:"run"`
	Check   *soakcheck.Result `json:"check"`
}

// FaultCounts counts the applied faults by kind.
func (r Report) FaultCounts() map[string]int {
	n := map[string]int{}
	for _, a := range r.Outcome.Applied {
		n[a.Kind]++
	}
	return n
}

// Markdown is the summary.
func (r Report) Markdown() []byte {
	var b bytes.Buffer
	o, c := r.Outcome, r.Check
	verdict := "PASS"
	if !c.OK {
		verdict = "FAIL"
	}
	cfg := o.Config
	fmt.Fprintf(&b, "# Soak: %s, seed %d — %s\n\n", cfg.Coordinator, cfg.Seed, verdict)
	fmt.Fprintf(&b, "`soak -coordinator %s -procs %d -ids %d -duration %v -seed %d -rate %d -lease %v -renew %v -gap %v`\n\n",
		cfg.Coordinator, cfg.Procs, cfg.IDs, cfg.Duration, cfg.Seed, cfg.Rate, cfg.LeaseDuration, cfg.RenewInterval, cfg.MeanGap)
	fmt.Fprintf(&b, "Ran %s .. %s UTC (%v), %d worker slots, %d incarnations; at most %d IDs/s per worker, every ID recorded.\n\n",
		o.Start.UTC().Format("2006-01-02 15:04:05"), o.End.UTC().Format("15:04:05"), o.End.Sub(o.Start).Round(time.Second), cfg.Procs, c.Processes, cfg.Rate)
	b.WriteString("## Safety\n\n| check | found |\n|---|---|\n")
	fmt.Fprintf(&b, "| IDs checked | %d (counter %d, sortable %d; %d handed out masked) |\n", c.IDs, c.IDsByKind["counter"], c.IDsByKind["sortable"], c.Masked)
	fmt.Fprintf(&b, "| lease events | %d %v |\n", c.Events, c.EventsByKind)
	fmt.Fprintf(&b, "| hand-offs (a machine ID taken by another worker than its previous holder) | %d (and %d retakes by a restarted worker) |\n", c.HandOffs, c.Retakes)
	fmt.Fprintf(&b, "| hand-offs checked (both holders generated) / violations | %d / %d |\n", c.HandOffsChecked, len(c.HandOffViolations))
	fmt.Fprintf(&b, "| claims checked / granted while another process's lease ran | %d / %d |\n", c.ClaimsChecked, len(c.EarlyClaims))
	fmt.Fprintf(&b, "| IDs whose call began after its lease's usable window | %d |\n", c.PastWindow)
	fmt.Fprintf(&b, "| duplicate IDs | %d |\n| two holders generating at once | %d |\n| overlapping ID ranges of successive holders | %d |\n| IDs outside their process's lease window | %d |\n| machine bits not the record's | %d |\n| malformed lines | %d (truncated tails of killed workers: %d) |\n\n",
		c.Duplicates, len(c.Overlaps), len(c.RangeOverlaps), c.OutOfWindow, c.MachineMismatch, c.Malformed, c.TruncatedTails)
	for _, d := range c.DuplicateExamples {
		fmt.Fprintf(&b, "- duplicate %s %s: %s (pid %d, machine %d) and %s (pid %d, machine %d)\n", d.Kind, d.ID, d.A.Proc, d.A.PID, d.A.MachineID, d.B.Proc, d.B.PID, d.B.MachineID)
	}
	for _, x := range c.Overlaps {
		fmt.Fprintf(&b, "- overlap on machine %d: %s\n", x.MachineID, x.Detail)
	}
	for _, x := range c.HandOffViolations {
		fmt.Fprintf(&b, "- hand-off on machine %d: %s\n", x.MachineID, x.Detail)
	}
	for _, x := range c.EarlyClaims {
		fmt.Fprintf(&b, "- early claim on machine %d: %s\n", x.MachineID, x.Detail)
	}
	for _, x := range c.PastWindowEx {
		fmt.Fprintf(&b, "- past the window: %s (pid %d, machine %d) ID %s: %s\n", x.Proc, x.PID, x.MachineID, x.ID, x.Detail)
	}
	for _, x := range c.RangeOverlaps {
		fmt.Fprintf(&b, "- ID ranges overlap on machine %d: %s\n", x.MachineID, x.Detail)
	}
	for _, x := range c.OutOfWindowEx {
		fmt.Fprintf(&b, "- out of window: %s (pid %d) machine %d ID %s: %s\n", x.Proc, x.PID, x.MachineID, x.ID, x.Detail)
	}
	b.WriteString("\n## Faults injected\n\n| kind | count |\n|---|---|\n")
	counts := r.FaultCounts()
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	total := 0
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %s | %d |\n", k, counts[k])
		total += counts[k]
	}
	fmt.Fprintf(&b, "| total | %d |\n\nSchedule (from the seed; `soak -plan` prints it):\n\n| at | fault | target | for | applied |\n|---|---|---|---|---|\n", total)
	applied := map[time.Duration]soakrun.Applied{}
	for _, a := range o.Applied {
		applied[a.At] = a
	}
	for _, f := range o.Plan.Faults {
		a, ok := applied[f.At]
		got := "not reached"
		if ok {
			got = fmt.Sprintf("%v..%v", a.Start.Sub(o.Start).Round(time.Millisecond), a.End.Sub(o.Start).Round(time.Millisecond))
			if a.Err != "" {
				got += " error: " + a.Err
			}
		}
		extra := ""
		if f.Kind == soakrun.Restart {
			extra = fmt.Sprintf(" (clock offset %v)", f.Offset.Round(time.Millisecond))
		}
		fmt.Fprintf(&b, "| %v | %s%s | %s | %v | %s |\n", f.At.Round(time.Millisecond), f.Kind, extra, f.Target, f.For.Round(time.Millisecond), got)
	}
	fmt.Fprintf(&b, "\nInitial clock offsets of the workers' nonce factories: %v.\n", roundAll(o.Plan.Offsets))
	fmt.Fprintf(&b, "\n## Liveness\n\nGenerating: %v slices of the run with an ID drawn by the slot; lease held: inside a window from the events (a SIGSTOPped worker's window stays open).\n\n", soakcheck.Bucket)
	b.WriteString("| worker | incarnations | generating | longest outage | lease held | longest without a lease | recovery after the last fault | IDs |\n|---|---|---|---|---|---|---|---|\n")
	for _, l := range c.Liveness {
		rec := fmt.Sprintf("%.3f s", l.Recovery)
		if l.Recovery < 0 {
			rec = "not recovered"
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f%% | %.1f s | %.1f%% | %.3f s | %s | %d |\n", l.Proc, l.Incarnations, 100*l.Share, l.LongestOutage, 100*l.HeldShare, l.HeldLongestOutage, rec, l.IDs)
	}
	fmt.Fprintf(&b, "\nLast fault ended %v after the start; slowest recovery %.3f s.\n", time.Duration(c.LastFault-o.Start.UnixNano()).Round(time.Millisecond), c.Recovery)
	fmt.Fprintf(&b, "Machine IDs not released by their last holder at the end: %d", len(c.Leaked))
	for _, l := range c.Leaked {
		fmt.Fprintf(&b, "; %d (%s pid %d: %s)", l.MachineID, l.Proc, l.PID, l.Last)
	}
	b.WriteString(".\n\n## Worker exits\n\n")
	names := make([]string, 0, len(o.Exits))
	for n := range o.Exits {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, e := range o.Exits[n] {
			cause := e.Cause
			if cause == "" {
				cause = "on its own (see its log)"
			}
			fmt.Fprintf(&b, "- %s.%d (pid %d) at %v: %s, %s\n", n, e.Inc, e.PID, e.At.Sub(o.Start).Round(time.Millisecond), e.Status, cause)
		}
	}
	fmt.Fprintf(&b, "\nChecker: %.1f s, %d shards, %d MiB spilled, largest shard %d IDs, max RSS %d MiB.\n", c.Seconds, c.Shards, c.SpillBytes>>20, c.MaxShard, c.MaxRSS>>20)
	b.WriteString("\n![timeline](timeline.svg)\n")
	return b.Bytes()
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// SVG is the timeline: one row per worker slot and one for the
// coordinator; holdings as bars coloured by machine ID (labelled), faults
// as red bands over their row.
func (r Report) SVG() []byte {
	o, c := r.Outcome, r.Check
	const left, top, rowH, width = 110.0, 40.0, 34.0, 1400.0
	start := o.Start.UnixNano()
	end := o.End.UnixNano()
	for _, h := range c.Holdings {
		if !h.Open && h.End > end {
			end = h.End
		}
	}
	end = max(end, start+int64(time.Second))
	x := func(t int64) float64 {
		return left + (width-left-20)*float64(min(max(t, start), end)-start)/float64(end-start)
	}
	rows := map[string]int{}
	for i := range o.Config.Procs {
		rows[fmt.Sprintf("w%d", i+1)] = i
	}
	coordRow := o.Config.Procs
	height := top + rowH*float64(coordRow+1) + 60
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="10" y="18" font-size="14">soak %s seed %d: %d IDs, %d duplicates, %d overlaps, %d out of window</text>`+"\n",
		html.EscapeString(o.Config.Coordinator), o.Config.Seed, c.IDs, c.Duplicates, len(c.Overlaps), c.OutOfWindow)
	for i := 0; i <= coordRow; i++ {
		y := top + rowH*float64(i)
		label := fmt.Sprintf("w%d", i+1)
		if i == coordRow {
			label = "coordinator"
		}
		fmt.Fprintf(&b, `<text x="8" y="%.0f">%s</text><line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="#ddd"/>`+"\n", y+rowH/2+4, label, left, width-20, y+rowH, y+rowH)
	}
	step := niceStep(time.Duration(end - start))
	for t := time.Duration(0); start+int64(t) <= end; t += step {
		xx := x(start + int64(t))
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#eee"/><text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%v</text>`+"\n",
			xx, xx, top, top+rowH*float64(coordRow+1), xx, top+rowH*float64(coordRow+1)+14, t)
	}
	for _, h := range c.Holdings {
		row, ok := rows[h.Proc]
		if !ok {
			continue
		}
		e := h.End
		if h.Open {
			e = end
		}
		y := top + rowH*float64(row) + 6
		x0, x1 := x(h.Start), x(e)
		hue := (h.MachineID * 47) % 360
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="hsl(%d,60%%,70%%)" stroke="hsl(%d,60%%,40%%)"><title>%s pid %d machine %d: %s .. %s (%s), %d IDs</title></rect>`+"\n",
			x0, y, math.Max(x1-x0, 1), rowH-12, hue, hue, h.Proc, h.PID, h.MachineID, clock(h.Start), clock(e), h.EndKind, h.IDs)
		if x1-x0 > 24 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#222">%d</text>`+"\n", x0+3, y+rowH/2, h.MachineID)
		}
	}
	for _, a := range o.Applied {
		row := coordRow
		if a.Target != "coordinator" {
			row = rows[a.Target]
		}
		y := top + rowH*float64(row) + 2
		x0, x1 := x(a.Start.UnixNano()), x(a.End.UnixNano())
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="red" fill-opacity="0.25" stroke="red"><title>%s on %s: %v for %v %s</title></rect>`+"\n",
			x0, y, math.Max(x1-x0, 2), rowH-4, a.Kind, a.Target, a.Start.Sub(o.Start).Round(time.Millisecond), a.End.Sub(a.Start).Round(time.Millisecond), html.EscapeString(a.Err))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#b00" font-size="9">%s</text>`+"\n", x0+1, y+rowH-6, a.Kind)
	}
	ly := top + rowH*float64(coordRow+1) + 34
	fmt.Fprintf(&b, `<text x="8" y="%.0f" fill="#555">bars: lease windows (acquired .. lost/released/disabled), coloured and labelled by machine ID; red: faults; the run ended at %v, then the workers shut down</text>`+"\n", ly, o.End.Sub(o.Start).Round(time.Second))
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func niceStep(d time.Duration) time.Duration {
	for _, s := range []time.Duration{5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute, 10 * time.Minute} {
		if d/s <= 15 {
			return s
		}
	}
	return 30 * time.Minute
}

func clock(ns int64) string { return time.Unix(0, ns).UTC().Format("15:04:05.000") }
