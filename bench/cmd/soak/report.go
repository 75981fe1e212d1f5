package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/once-go/once/bench/internal/soakreport"
)

// report renders report.md and timeline.svg again from a run's
// report.json.
func report(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: soak report DIR")
	}
	b, err := os.ReadFile(filepath.Join(args[0], "report.json"))
	if err != nil {
		return err
	}
	var rep soakreport.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(args[0], "report.md"), rep.Markdown(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(args[0], "timeline.svg"), rep.SVG(), 0o644)
}
