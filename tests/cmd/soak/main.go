// Command soak is a randomized fault soak of the lease layer with an
// independent checker.
//
//	soak [run flags]          start workers on a coordinator, inject a seeded fault schedule, check, report
//	soak check FILE...        check records (exit 1 on a duplicate, overlap or out-of-window ID)
//	soak worker               one worker process (started by soak run)
//	soak report [-recheck] DIR  render DIR/report.md and DIR/timeline.svg again from DIR/report.json
//	soak gen -n N -o FILE     write a synthetic clean record of N IDs (for sizing the checker)
//
// See docs/reliability.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	args := os.Args[1:]
	cmd := "run"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var status int
	var err error
	switch cmd {
	case "check":
		status, err = check(args)
	case "gen":
		err = gen(args)
	case "report":
		err = report(args)
	case "worker":
		err = worker(args)
	case "run":
		status, err = runSoak(args)
	default:
		err = fmt.Errorf("unknown command %q (run, check, report, worker, gen)", cmd)
		status = 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		if status == 0 {
			status = 2
		}
	}
	os.Exit(status)
}
