package main

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"

	"github.com/once-go/once/tests/internal/soakcheck"
	"github.com/once-go/once/tests/internal/soakreport"
)

// report renders report.md and timeline.svg again from a run's
// report.json; with -recheck it checks DIR/records/*.jsonl again first
// (and rewrites report.json).
func report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	recheck := fs.Bool("recheck", false, "run the checker on DIR/records again")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("usage: soak report [-recheck] DIR")
	}
	dir := fs.Arg(0)
	args = []string{dir}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return err
	}
	var rep soakreport.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return err
	}
	if *recheck {
		files, _ := filepath.Glob(filepath.Join(dir, "records", "*.jsonl"))
		if rep.Check, err = soakcheck.Check(files, soakcheck.Options{TempDir: dir}); err != nil {
			return err
		}
		printResult(os.Stdout, rep.Check)
		b, _ = json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "report.json"), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(args[0], "report.md"), rep.Markdown(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(args[0], "timeline.svg"), rep.SVG(), 0o644)
}
