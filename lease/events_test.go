package lease_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

func TestEventsAndLogs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		r := newRig(t, 512)
		r.opts.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		fails := 1
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				if fails > 0 {
					fails--
					return driver.Lease{}, errRetry
				}
				return f.mem.Renew(ctx, l, d)
			}
		})
		m := r.start()
		time.Sleep(31 * time.Minute)
		m.LeaseLost("test")
		synctest.Wait()
		m.Close(context.Background())

		type key struct {
			kind   lease.EventKind
			op     lease.Op
			result string
		}
		var got []key
		for _, e := range r.rec.events() {
			got = append(got, key{e.Kind, e.Op, lease.ResultOf(e.Err)})
		}
		want := []key{
			{lease.EventStart, lease.OpAcquire, "ok"},
			{lease.EventEnd, lease.OpAcquire, "ok"},
			{lease.EventStart, lease.OpRenew, "ok"},
			{lease.EventEnd, lease.OpRenew, "retry"},
			{lease.EventRetry, lease.OpRenew, "retry"},
			{lease.EventStart, lease.OpRenew, "ok"},
			{lease.EventEnd, lease.OpRenew, "ok"},
			{lease.EventLost, "", "external"},
			{lease.EventStart, lease.OpRelease, "ok"},
			{lease.EventEnd, lease.OpRelease, "ok"},
			{lease.EventStart, lease.OpAcquire, "ok"},
			{lease.EventEnd, lease.OpAcquire, "ok"},
			{lease.EventStart, lease.OpRelease, "ok"},
			{lease.EventEnd, lease.OpRelease, "ok"},
		}
		if len(got) != len(want) {
			t.Fatalf("events:\n%v\nwant\n%v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d: %v, want %v", i, got[i], want[i])
			}
		}
		ev := r.rec.events()
		if ev[1].TTL != driver.DefaultLeaseDuration || ev[1].MachineID != 0 || ev[4].Delay <= time.Second || !errors.Is(ev[7].Err, lease.ErrExternal) ||
			ev[7].TTL != driver.DefaultLeaseDuration-(31*time.Minute-(30*time.Minute-10*time.Second+ev[4].Delay)) || ev[11].MachineID != 0 {
			t.Errorf("event details: %+v %+v %+v %+v", ev[1], ev[4], ev[7], ev[11])
		}

		// The same, as structured log records.
		var records []map[string]any
		for line := range bytes.Lines(buf.Bytes()) {
			var rec map[string]any
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			records = append(records, rec)
		}
		find := func(msg string) map[string]any {
			for _, rec := range records {
				if rec["msg"] == msg {
					return rec
				}
			}
			t.Errorf("no log record %q in\n%s", msg, buf.String())
			return map[string]any{}
		}
		if rec := find("lease acquire done"); rec["level"] != "INFO" || rec["strategy"] != "fake" || rec["source"] != "initial" || rec["result"] != "ok" || rec["granted_ttl"] == nil || rec["duration"] == nil {
			t.Errorf("acquire record %v", rec)
		}
		if rec := find("lease renew retry"); rec["level"] != "WARN" || rec["attempt"] != 1.0 || rec["delay"] == nil || rec["reason"] == nil || rec["operation"] != "renew" {
			t.Errorf("retry record %v", rec)
		}
		if rec := find("lease lost"); rec["level"] != "ERROR" || rec["remaining_ttl"] == nil || rec["machine_id"] != 0.0 {
			t.Errorf("lost record %v", rec)
		}
		// Every record of an event says why its operation ran.
		var sources []string
		for _, rec := range records {
			if src, ok := rec["source"]; ok {
				sources = append(sources, fmt.Sprint(src))
			}
		}
		if got, want := strings.Join(sources, " "), "initial initial scheduled scheduled scheduled scheduled scheduled scheduled reacquire reacquire reacquire reacquire shutdown shutdown"; got != want {
			t.Errorf("record sources\n%s\nwant\n%s", got, want)
		}
	})
}

// TestEventsOfALoss: a loss at a renewal (the coordinator says the lease
// is not ours) disables the factories before the lost event, which carries
// the reason and what was left of the TTL; the backoff after the
// short-lived lease follows, then the new lease.
func TestEventsOfALoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		var at []time.Duration // when each event came, from Start
		t0 := time.Now()
		r.opts.Events = func(e lease.Event) {
			r.rec.hook(e)
			at = append(at, time.Since(t0))
		}
		m := r.start()
		renewAt := driver.DefaultRenewInterval - driver.SafetyMargin
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(renewAt + 10*time.Second)
		synctest.Wait()
		if m.MachineID() != 1 {
			t.Fatalf("machine ID %d after the loss, want 1", m.MachineID())
		}
		m.Close(context.Background())

		var kinds []string
		ev := r.rec.events()
		for _, e := range ev {
			kinds = append(kinds, fmt.Sprintf("%s/%s/%d", e.Kind, e.Op, e.MachineID))
		}
		want := "start/acquire/-1 end/acquire/0 start/renew/0 end/renew/0 lost//0 retry/acquire/-1 start/acquire/-1 end/acquire/1 start/release/1 end/release/1"
		if got := strings.Join(kinds, " "); got != want {
			t.Fatalf("events\n%s\nwant\n%s", got, want)
		}
		if end := ev[3]; !errors.Is(end.Err, lease.ErrLost) {
			t.Errorf("renew end %+v, want ErrLost", end)
		}
		if lost := ev[4]; !errors.Is(lost.Err, lease.ErrLost) || lost.TTL != driver.DefaultLeaseDuration-renewAt || at[4] != renewAt {
			t.Errorf("lost event %+v at %v, want ErrLost with %v left, at %v", lost, at[4], driver.DefaultLeaseDuration-renewAt, renewAt)
		}
		// The factories were disabled before the lost event.
		di, _, ok1 := r.j.find(0, "disable")
		ei, _, ok2 := r.j.find(0, "event lost  ")
		if !ok1 || !ok2 || di > ei {
			t.Errorf("disable not before the lost event:\n%s", r.j)
		}
		// A short-lived lease backs off as a failure does (1s base).
		if retry := ev[5]; retry.Err != nil || !within(retry.Delay, time.Second+1, 2*time.Second) || at[6]-at[5] != retry.Delay {
			t.Errorf("retry after a short-lived lease %+v; next attempt %v later", retry, at[6]-at[5])
		}
		if got := ev[7]; got.Err != nil || got.TTL != driver.DefaultLeaseDuration {
			t.Errorf("new lease %+v", got)
		}
	})
}
