package main

import (
	"flag"
	"os"
	"time"

	"github.com/once-go/once/tests/internal/soakwork"
)

func worker(args []string) error {
	fs := flag.NewFlagSet("worker", flag.ExitOnError)
	var c soakwork.Config
	fs.StringVar(&c.Proc, "proc", "w1", "process name in the records")
	fs.StringVar(&c.Coordinator, "coordinator", "postgres", "coordinator kind")
	fs.StringVar(&c.Target, "target", "", "DSN or address(es)")
	fs.StringVar(&c.Namespace, "ns", "once_leases", "lease table, hash or prefix")
	fs.StringVar(&c.StateFile, "state", "", "lease state file (empty: none)")
	fs.StringVar(&c.Out, "out", "records.jsonl", "record file (appended)")
	fs.IntVar(&c.Rate, "rate", 1000, "IDs per second at most")
	fs.DurationVar(&c.ClockOffset, "clock-offset", 0, "offset added to the nonce factory's clock")
	fs.DurationVar(&c.LeaseDuration, "lease", 30*time.Second, "lease duration")
	fs.DurationVar(&c.RenewInterval, "renew", 12*time.Second, "renew interval")
	fs.IntVar(&c.IDs, "ids", 0, "take only machine IDs 0..N-1 (0: all)")
	fs.StringVar(&c.ClockFile, "clock-file", "", "file whose duration becomes the clock offset on SIGUSR2 (a clock step)")
	fs.StringVar(&c.Holding, "holding", "", "file that holds the machine ID while the worker holds a lease")
	fs.Parse(args)
	c.Key = os.Getenv("ONCE_KEY")
	return soakwork.Run(c)
}
