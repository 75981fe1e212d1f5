package lease_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
			kind   string
			op     string
			source string
			result string
		}
		var got []key
		for _, e := range r.rec.events() {
			if e.Strategy != "fake" {
				t.Errorf("event without strategy: %+v", e)
			}
			got = append(got, key{e.Kind, e.Op, e.Source, e.Result})
		}
		want := []key{
			{lease.EventStart, lease.OpAcquire, lease.SourceInitial, ""},
			{lease.EventEnd, lease.OpAcquire, lease.SourceInitial, "ok"},
			{lease.EventStart, lease.OpRenew, lease.SourceScheduled, ""},
			{lease.EventEnd, lease.OpRenew, lease.SourceScheduled, "retry"},
			{lease.EventRetry, lease.OpRenew, lease.SourceScheduled, "retry"},
			{lease.EventStart, lease.OpRenew, lease.SourceScheduled, ""},
			{lease.EventEnd, lease.OpRenew, lease.SourceScheduled, "ok"},
			{lease.EventLost, "", lease.SourceScheduled, "external"},
			{lease.EventStart, lease.OpRelease, lease.SourceReacquire, ""},
			{lease.EventEnd, lease.OpRelease, lease.SourceReacquire, "ok"},
			{lease.EventStart, lease.OpAcquire, lease.SourceReacquire, ""},
			{lease.EventEnd, lease.OpAcquire, lease.SourceReacquire, "ok"},
			{lease.EventStart, lease.OpRelease, lease.SourceShutdown, ""},
			{lease.EventEnd, lease.OpRelease, lease.SourceShutdown, "ok"},
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
		if ev[1].GrantedTTL != driver.DefaultLeaseDuration || ev[4].Attempt != 1 || ev[4].Delay <= time.Second || !errors.Is(ev[7].Err, lease.ErrExternal) {
			t.Errorf("event details: %+v %+v %+v", ev[1], ev[4], ev[7])
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
	})
}
