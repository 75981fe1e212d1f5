// Package soakreport writes a soak run's report: JSON, a Markdown summary
// and an SVG timeline.
package soakreport

import (
	"github.com/once-go/once/bench/internal/soakcheck"
	"github.com/once-go/once/bench/internal/soakrun"
)

// Report is a run and its check.
type Report struct {
	Outcome *soakrun.Outcome  `json:"run"`
	Check   *soakcheck.Result `json:"check"`
}

func (r Report) Markdown() []byte { return nil }
func (r Report) SVG() []byte      { return nil }
