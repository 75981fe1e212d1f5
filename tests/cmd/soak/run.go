package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/once-go/once/internal/testonly"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/once-go/once/tests/internal/soakcheck"
	"github.com/once-go/once/tests/internal/soakreport"
	"github.com/once-go/once/tests/internal/soakrun"
	"github.com/once-go/once/tests/internal/soakwork"
)

func runSoak(args []string) (int, error) {
	fs := flag.NewFlagSet("soak", flag.ExitOnError)
	var c soakrun.Config
	fs.StringVar(&c.Coordinator, "coordinator", "postgres", "one of "+strings.Join(soakwork.Coordinators, ", "))
	fs.IntVar(&c.Procs, "procs", 4, "worker processes")
	fs.DurationVar(&c.Duration, "duration", 2*time.Minute, "length of the run (faults end 20s before)")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the fault schedule")
	fs.StringVar(&c.Out, "out", "", "output directory (default soak-out/COORDINATOR-SEED)")
	fs.IntVar(&c.Rate, "rate", 1000, "IDs per second per worker, at most (every one is recorded)")
	fs.DurationVar(&c.LeaseDuration, "lease", 30*time.Second, "lease duration (the public minimum is 30s)")
	fs.DurationVar(&c.RenewInterval, "renew", 12*time.Second, "renew interval")
	fs.DurationVar(&c.MeanGap, "gap", 6*time.Second, "mean time between faults")
	fs.IntVar(&c.IDs, "ids", 0, "every worker takes only machine IDs 0..N-1 (0: all 512); fewer IDs than -procs makes every fault hand an ID to another worker")
	faults := fs.String("faults", "", "comma-separated fault kinds (default: all the coordinator supports)")
	plan := fs.Bool("plan", false, "print the schedule and exit")
	fs.Parse(args)
	if c.IDs < 0 || c.IDs > 512 {
		return 2, fmt.Errorf("-ids %d is outside 0..512", c.IDs)
	}
	if c.LeaseDuration < 30*time.Second && !testonly.Enabled {
		return 2, fmt.Errorf("-lease %v is below the public minimum (30s): build the soak with -tags oncetest for short leases", c.LeaseDuration)
	}
	if *faults != "" {
		c.Faults = strings.Split(*faults, ",")
	}
	if c.Out == "" {
		c.Out = filepath.Join("soak-out", fmt.Sprintf("%s-%d", c.Coordinator, c.Seed))
	}
	if *plan {
		if len(c.Faults) == 0 {
			c.Faults = soakrun.DefaultFaults(c.Coordinator)
		}
		soakrun.MakePlan(c.Seed, c.Procs, c.IDs, c.Duration, c.MeanGap, c.LeaseDuration, c.Faults).Print(os.Stdout)
		return 0, nil
	}
	bin, err := os.Executable()
	if err != nil {
		return 2, err
	}
	c.Bin, c.Log = bin, os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGHUP) // runs outlive the shell that started them
	ids := "all machine IDs"
	if c.IDs > 0 {
		ids = fmt.Sprintf("machine IDs 0..%d", c.IDs-1)
	}
	if soakrun.ReleaseDeletes(c.Coordinator, c.Seed) {
		ids += ", releases delete at once (odd seed)"
	}
	fmt.Printf("soak: %s, %d workers, %s, %v, seed %d, at most %d IDs/s each, lease %v, renew interval %v, out %s\n",
		c.Coordinator, c.Procs, ids, c.Duration, c.Seed, c.Rate, c.LeaseDuration, c.RenewInterval, c.Out)
	out, err := soakrun.Run(ctx, c)
	if err != nil {
		return 2, err
	}
	res, err := soakcheck.Check(out.RecordFiles, soakcheck.Options{TempDir: c.Out})
	if err != nil {
		return 2, err
	}
	printResult(os.Stdout, res)
	rep := soakreport.Report{Outcome: out, Check: res}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(c.Out, "report.json"), b, 0o644); err != nil {
		return 2, err
	}
	if err := os.WriteFile(filepath.Join(c.Out, "report.md"), rep.Markdown(), 0o644); err != nil {
		return 2, err
	}
	if err := os.WriteFile(filepath.Join(c.Out, "timeline.svg"), rep.SVG(), 0o644); err != nil {
		return 2, err
	}
	fmt.Printf("soak: report in %s (report.json, report.md, timeline.svg)\n", c.Out)
	if !res.OK {
		return 1, nil
	}
	// A run that generated nothing, or handed no ID over when it was to,
	// proves nothing: a coordinator that was down looks like a clean run.
	switch {
	case res.IDs == 0:
		fmt.Println("soak: INVALID: no ID was generated (is the coordinator up? see logs/)")
		return 3, nil
	case c.IDs > 0 && res.HandOffs == 0:
		fmt.Println("soak: INVALID: no machine ID changed hands in a contention run")
		return 3, nil
	}
	return 0, nil
}
