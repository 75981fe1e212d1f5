package soakwork

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease"
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

// TestReleaseOutcomes: a release that succeeded is a released event; one
// that failed with its outcome unknown is a release-failed event stamped
// when it was sent; one the coordinator refused (ErrLost) is neither.
func TestReleaseOutcomes(t *testing.T) {
	now := time.Date(2026, 12, 8, 2, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		err  error
		want string // the event's kind and time, "" for none
	}{
		{"applied", nil, `"event":"released","t":` + strconv.FormatInt(now.UnixNano(), 10)},
		{"connection cut", fmt.Errorf("sqllease: release machine ID 3: invalid connection: %w", lease.ErrTimeout), `"event":"release-failed","t":` + strconv.FormatInt(now.Add(-30*time.Millisecond).UnixNano(), 10)},
		{"refused", fmt.Errorf("sqllease: release machine ID 3: %w", lease.ErrLost), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			rec := soakrec.NewWriter(&out, "w1", 42)
			var opStart time.Time
			e := lease.Event{Kind: lease.EventEnd, Op: lease.OpRelease, MachineID: 3, Duration: 30 * time.Millisecond, Err: c.err}
			if record(rec, Config{}, e, now, &opStart) {
				t.Error("a release reported as a loss")
			}
			rec.Close()
			got := strings.TrimSpace(out.String())
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Fatalf("records %q, want %q", got, c.want)
			}
		})
	}
}
