package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/once-go/once/tests/internal/soakcheck"
)

// check runs the checker on files and prints its findings; it returns
// the exit status (0 clean, 1 findings).
func check(args []string) (int, error) {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	tmp := fs.String("tmp", "", "directory for the shard files (default $TMPDIR)")
	jsonOut := fs.String("json", "", "also write the result as JSON to this file")
	shard := fs.Int64("shard-mb", 8, "target size of one shard in memory, MiB")
	fs.Parse(args)
	if fs.NArg() == 0 {
		return 2, errors.New("usage: soak check [-tmp DIR] [-json FILE] FILE")
	}
	r, err := soakcheck.Check(fs.Args(), soakcheck.Options{TempDir: *tmp, ShardBytes: *shard << 20})
	if err != nil {
		return 2, err
	}
	printResult(os.Stdout, r)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(r, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return 2, err
		}
	}
	if !r.OK {
		return 1, nil
	}
	return 0, nil
}

func printResult(w io.Writer, r *soakcheck.Result) {
	verdict := "PASS"
	if !r.OK {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "soak check: %s: %d files, %d lines, %d IDs %v (%d masked), %d events %v, %d processes, %d faults\n",
		verdict, r.Files, r.Lines, r.IDs, r.IDsByKind, r.Masked, r.Events, r.EventsByKind, r.Processes, len(r.Faults))
	fmt.Fprintf(w, "  duplicates %d, overlapping holders %d, overlapping ID ranges %d, out of window %d, machine bits wrong %d, malformed lines %d, truncated tails %d\n",
		r.Duplicates, len(r.Overlaps), len(r.RangeOverlaps), r.OutOfWindow, r.MachineMismatch, r.Malformed, r.TruncatedTails)
	fmt.Fprintf(w, "  %d hand-offs (a machine ID taken by another worker than its previous holder), %d retakes by a restarted worker; %d checked, %d violations\n",
		r.HandOffs, r.Retakes, r.HandOffsChecked, len(r.HandOffViolations))
	for _, o := range r.HandOffViolations {
		fmt.Fprintf(w, "  HAND-OFF machine %d: %s\n", o.MachineID, o.Detail)
	}
	fmt.Fprintf(w, "  %d claims checked against the other processes' leases, %d granted while one ran\n", r.ClaimsChecked, len(r.EarlyClaims))
	fmt.Fprintf(w, "  %d IDs whose call began after its lease's usable window\n", r.PastWindow)
	for _, s := range r.PastWindowEx {
		fmt.Fprintf(w, "  PAST WINDOW %s(pid %d, machine %d) ID %s: %s\n", s.Proc, s.PID, s.MachineID, s.ID, s.Detail)
	}
	for _, o := range r.EarlyClaims {
		fmt.Fprintf(w, "  EARLY CLAIM machine %d: %s\n", o.MachineID, o.Detail)
	}
	for _, d := range r.DuplicateExamples {
		fmt.Fprintf(w, "  DUPLICATE %s %s: %s(pid %d, machine %d, %s) and %s(pid %d, machine %d, %s)\n", d.Kind, d.ID,
			d.A.Proc, d.A.PID, d.A.MachineID, clock(d.A.T0), d.B.Proc, d.B.PID, d.B.MachineID, clock(d.B.T0))
	}
	for _, o := range r.Overlaps {
		fmt.Fprintf(w, "  OVERLAP machine %d: %s\n", o.MachineID, o.Detail)
	}
	for _, o := range r.RangeOverlaps {
		fmt.Fprintf(w, "  RANGE machine %d: %s\n", o.MachineID, o.Detail)
	}
	for _, s := range r.OutOfWindowEx {
		fmt.Fprintf(w, "  OUT OF WINDOW %s(pid %d) machine %d id %s: %s\n", s.Proc, s.PID, s.MachineID, s.ID, s.Detail)
	}
	for _, s := range r.MachineMismatchEx {
		fmt.Fprintf(w, "  MACHINE BITS %s(pid %d) machine %d id %s: %s\n", s.Proc, s.PID, s.MachineID, s.ID, s.Detail)
	}
	if r.MalformedExample != "" {
		fmt.Fprintf(w, "  MALFORMED %s\n", r.MalformedExample)
	}
	if r.RunEnd > r.RunStart {
		fmt.Fprintf(w, "  liveness over %v (last fault ended %s):\n", time.Duration(r.RunEnd-r.RunStart).Round(time.Millisecond), clock(r.LastFault))
		for _, l := range r.Liveness {
			rec := fmt.Sprintf("%.3fs", l.Recovery)
			if l.Recovery < 0 {
				rec = "not recovered"
			}
			fmt.Fprintf(w, "    %-4s incarnations %d, generating %.1f%% of the time (lease held %.1f%%), longest outage %.1fs (without a lease %.3fs), recovery after the last fault %s, %d IDs\n",
				l.Proc, l.Incarnations, 100*l.Share, 100*l.HeldShare, l.LongestOutage, l.HeldLongestOutage, rec, l.IDs)
		}
	}
	fmt.Fprintf(w, "  machine IDs not released by their last holder: %d", len(r.Leaked))
	for _, l := range r.Leaked {
		fmt.Fprintf(w, " %d(%s pid %d: %s)", l.MachineID, l.Proc, l.PID, l.Last)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  checked in %.1fs: %d shards, %d MB spilled, largest shard %d IDs, max RSS %d MB\n",
		r.Seconds, r.Shards, r.SpillBytes>>20, r.MaxShard, r.MaxRSS>>20)
}

func clock(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return time.Unix(0, ns).UTC().Format("15:04:05.000")
}
