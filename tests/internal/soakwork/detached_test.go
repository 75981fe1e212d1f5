package soakwork

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/once-go/once/tests/internal/soakrec"
)

// TestDetachedReleasesRecorded: the manager's log record of a release
// after a call that outlived its deadline becomes a freed event; a failed
// one, and other records, do not.
func TestDetachedReleasesRecorded(t *testing.T) {
	var out bytes.Buffer
	rec := soakrec.NewWriter(&out, "w1", 42)
	log := slog.New(detachedReleases{slog.NewTextHandler(io.Discard, nil), rec}).With("strategy", "sql")
	log.Info("lease released again after a call that outlived its deadline returned", "machine_id", 3, "result", "ok")
	log.Warn("lease left by a call that outlived its deadline released", "machine_id", 4, "result", "retry", "reason", "down")
	log.Info("lease acquire done", "machine_id", 5, "result", "ok")
	rec.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"machine_id":3,"event":"freed"`) {
		t.Fatalf("records %q, want one freed event of machine ID 3", lines)
	}
}
