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
	"github.com/once-go/once/lease/leasenotice"
)

// noticeRig is a rig whose events also go to a Feed.
func noticeRig(t *testing.T) (*rig, *leasenotice.Feed) {
	r := newRig(t, 512)
	feed := leasenotice.NewFeed()
	r.opts.Events = func(e lease.Event) {
		r.rec.hook(e)
		feed.Hook(e)
	}
	return r, feed
}

// drain returns the notices in sub's channel until it is closed.
func drain(sub *leasenotice.Subscription) []leasenotice.Notice {
	var out []leasenotice.Notice
	for n := range sub.C() {
		out = append(out, n)
	}
	return out
}

// want is the expected shape of one notice.
type want struct {
	kind      leasenotice.NoticeKind
	source    string
	id        int
	attempt   int
	result    string
	remaining time.Duration // -1: do not check
}

func checkNotices(t *testing.T, got []leasenotice.Notice, ws []want) {
	t.Helper()
	var b strings.Builder
	for _, n := range got {
		fmt.Fprintf(&b, "  %s %s id=%d attempt=%d result=%q remaining=%v reason=%v\n", n.Kind, n.Source, n.MachineID, n.Attempt, n.Result, n.Remaining, n.Reason)
	}
	if len(got) != len(ws) {
		t.Fatalf("%d notices, want %d:\n%s", len(got), len(ws), b.String())
	}
	for i, w := range ws {
		n := got[i]
		if n.Kind != w.kind || n.Source != w.source || n.MachineID != w.id || n.Attempt != w.attempt || n.Result != w.result ||
			(w.remaining >= 0 && n.Remaining != w.remaining) || n.Strategy != "fake" {
			t.Errorf("notice %d: %+v\nwant %+v\nall:\n%s", i, n, w, b.String())
		}
	}
}

// TestNoticesRenewalFailsTwiceThenSucceeds: the etcd3-style sequence of a
// renewal that fails twice (recoverable: the factories stay enabled) and
// then succeeds, with attempts, delays, reasons and remaining validity.
func TestNoticesRenewalFailsTwiceThenSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, feed := noticeRig(t)
		sub := feed.Subscribe(0)
		fails := 2
		r.s.set(func(f *fake) {
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				if fails > 0 {
					fails--
					return driver.Lease{}, errRetry
				}
				return f.mem.Renew(ctx, l, d)
			}
		})
		t0 := time.Now()
		m := r.start()
		renewAt := driver.DefaultRenewInterval - driver.SafetyMargin
		safe := driver.DefaultLeaseDuration - driver.SafetyMargin
		time.Sleep(renewAt + 10*time.Second) // two retries: at most 2s + 3s
		synctest.Wait()
		if !r.f.generating() || r.j.count("disable") != 0 {
			t.Errorf("factories disabled by recoverable failures:\n%s", r.j)
		}
		if err := m.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		feed.Close()
		got := drain(sub)

		retries := r.rec.of(lease.EventRetry, lease.OpRenew)
		if len(retries) != 2 {
			t.Fatalf("%d renew retries, want 2", len(retries))
		}
		d1, d2 := retries[0].Delay, retries[1].Delay
		rem := safe - renewAt // validity left when the renewal is due
		checkNotices(t, got, []want{
			{leasenotice.NoticeAcquired, lease.SourceInitial, 0, 1, "ok", safe},
			{leasenotice.NoticeKeepAliveFired, lease.SourceScheduled, 0, 1, "", rem},
			{leasenotice.NoticeKeepAliveFailed, lease.SourceScheduled, 0, 1, "retry", rem},
			{leasenotice.NoticeKeepAliveFired, lease.SourceScheduled, 0, 2, "", rem - d1},
			{leasenotice.NoticeKeepAliveFailed, lease.SourceScheduled, 0, 2, "retry", rem - d1},
			{leasenotice.NoticeKeepAliveFired, lease.SourceScheduled, 0, 3, "", rem - d1 - d2},
			{leasenotice.NoticeKeepAliveSucceeded, lease.SourceScheduled, 0, 3, "ok", safe},
			{leasenotice.NoticeReleased, lease.SourceShutdown, 0, 0, "ok", 0},
		})
		if t.Failed() {
			return
		}
		// Delays, reasons, times, TTLs and deadlines.
		due := t0.Add(renewAt)
		for i, c := range []struct {
			n     leasenotice.Notice
			at    time.Time
			delay time.Duration
		}{
			{got[0], t0, 0}, {got[1], due, 0}, {got[2], due, d1}, {got[3], due.Add(d1), 0},
			{got[4], due.Add(d1), d2}, {got[5], due.Add(d1 + d2), 0}, {got[6], due.Add(d1 + d2), 0},
		} {
			if !c.n.Time.Equal(c.at) || c.n.Delay != c.delay {
				t.Errorf("notice %d (%s) at +%v delay %v, want at +%v delay %v", i, c.n.Kind, c.n.Time.Sub(t0), c.n.Delay, c.at.Sub(t0), c.delay)
			}
		}
		if !within(d1, time.Second+1, 2*time.Second) || !within(d2, 2*time.Second+1, 3*time.Second) {
			t.Errorf("retry delays %v, %v; want 1s..2s and 2s..3s", d1, d2)
		}
		for _, i := range []int{2, 4} {
			if !errors.Is(got[i].Reason, driver.ErrRetry) {
				t.Errorf("keepalive_failed reason %v, want ErrRetry", got[i].Reason)
			}
		}
		if got[0].GrantedTTL != driver.DefaultLeaseDuration || got[6].GrantedTTL != driver.DefaultLeaseDuration {
			t.Errorf("granted TTLs %v, %v", got[0].GrantedTTL, got[6].GrantedTTL)
		}
		if want := t0.Add(safe); !got[1].ValidUntil.Equal(want) || !got[4].ValidUntil.Equal(want) {
			t.Errorf("ValidUntil during retries %v, %v; want the first lease's deadline", got[1].ValidUntil, got[4].ValidUntil)
		}
		if want := due.Add(d1 + d2 + safe); !got[6].ValidUntil.Equal(want) {
			t.Errorf("ValidUntil after the renewal +%v, want +%v", got[6].ValidUntil.Sub(t0), want.Sub(t0))
		}
		if _, _, vu := r.f.state(); !vu.Equal(got[6].ValidUntil) {
			t.Errorf("factory deadline +%v, notice says +%v", vu.Sub(t0), got[6].ValidUntil.Sub(t0))
		}
		if !got[7].ValidUntil.IsZero() || got[7].Reason != nil {
			t.Errorf("released notice %+v", got[7])
		}
		if sub.Dropped() != 0 {
			t.Errorf("%d dropped", sub.Dropped())
		}
	})
}

// TestNoticesLoss: the sequence of a loss at a renewal (the coordinator
// says the lease is not ours), the backoff after a short-lived lease, and
// the new lease.
func TestNoticesLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, feed := noticeRig(t)
		sub := feed.Subscribe(0)
		t0 := time.Now()
		m := r.start()
		renewAt := driver.DefaultRenewInterval - driver.SafetyMargin
		safe := driver.DefaultLeaseDuration - driver.SafetyMargin
		r.s.mem.Steal(0, time.Hour)
		time.Sleep(renewAt + 10*time.Second)
		synctest.Wait()
		if m.MachineID() != 1 {
			t.Fatalf("machine ID %d after the loss, want 1", m.MachineID())
		}
		m.Close(context.Background())
		feed.Close()
		got := drain(sub)
		checkNotices(t, got, []want{
			{leasenotice.NoticeAcquired, lease.SourceInitial, 0, 1, "ok", safe},
			{leasenotice.NoticeKeepAliveFired, lease.SourceScheduled, 0, 1, "", safe - renewAt},
			{leasenotice.NoticeLost, lease.SourceScheduled, 0, 0, "lost", 0},
			{leasenotice.NoticeAcquireRetry, lease.SourceReacquire, -1, 1, "", 0},
			{leasenotice.NoticeAcquired, lease.SourceReacquire, 1, 1, "ok", safe},
			{leasenotice.NoticeReleased, lease.SourceShutdown, 1, 0, "ok", 0},
		})
		if t.Failed() {
			return
		}
		lost := got[2]
		if !errors.Is(lost.Reason, lease.ErrLost) || !lost.ValidUntil.IsZero() || lost.RemainingTTL != driver.DefaultLeaseDuration-renewAt ||
			!lost.Time.Equal(t0.Add(renewAt)) {
			t.Errorf("lost notice %+v", lost)
		}
		// The factories were disabled before the lost notice was produced.
		di, _, ok1 := r.j.find(0, "disable")
		ei, _, ok2 := r.j.find(0, "event lost  ")
		if !ok1 || !ok2 || di > ei {
			t.Errorf("disable not before the lost event:\n%s", r.j)
		}
		if retry := got[3]; retry.Reason != nil || !within(retry.Delay, time.Second+1, 2*time.Second) {
			t.Errorf("acquire_retry after a short-lived lease %+v", retry)
		}
		if got[4].Time.Sub(got[3].Time) != got[3].Delay {
			t.Errorf("new lease %v after the retry notice, want its delay %v", got[4].Time.Sub(got[3].Time), got[3].Delay)
		}
	})
}

// TestNoticesSlowSubscriber: a subscriber that never reads, and one that
// reads slowly, delay no renewal; they lose notices, counted, while a
// reading subscriber gets them all.
func TestNoticesSlowSubscriber(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, feed := noticeRig(t)
		stuck := feed.Subscribe(1)
		slow := feed.Subscribe(2)
		fast := feed.Subscribe(1000)
		slowDone := make(chan struct{})
		go func() {
			defer close(slowDone)
			for range slow.C() {
				time.Sleep(time.Hour) // a notice every 15m arrives
			}
		}()
		var all []leasenotice.Notice
		done := make(chan struct{})
		go func() {
			all = drain(fast)
			close(done)
		}()
		t0 := time.Now()
		m := r.start()
		renewAt := driver.DefaultRenewInterval - driver.SafetyMargin
		for i := 1; i <= 20; i++ {
			time.Sleep(renewAt - 1)
			synctest.Wait()
			if n := r.j.count("strategy renew"); n != i-1 {
				t.Fatalf("renewal %d early: %d renewals at +%v", i, n, time.Since(t0))
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if n := r.j.count("strategy renew"); n != i {
				t.Fatalf("renewal %d late: %d renewals at +%v", i, n, time.Since(t0))
			}
		}
		m.Close(context.Background())
		feed.Close()
		<-done
		<-slowDone
		// acquired + 20 * (fired, succeeded) + released
		if len(all) != 42 || fast.Dropped() != 0 {
			t.Errorf("reading subscriber got %d notices (%d dropped), want 42", len(all), fast.Dropped())
		}
		if n := len(drain(stuck)); n != 1 || stuck.Dropped() != 41 {
			t.Errorf("stuck subscriber: %d buffered, %d dropped; want 1 and 41", n, stuck.Dropped())
		}
		if slow.Dropped() == 0 {
			t.Error("slow subscriber dropped nothing")
		}
	})
}

func TestFeedSubscriptions(t *testing.T) {
	feed := leasenotice.NewFeed()
	a, b := feed.Subscribe(4), feed.Subscribe(4)
	ev := lease.Event{Kind: lease.EventEnd, Op: lease.OpRelease, Strategy: "x", MachineID: 3, Result: "ok"}
	feed.Hook(ev)
	feed.Hook(lease.Event{Kind: lease.EventStart, Op: lease.OpAcquire}) // no notice
	b.Close()
	b.Close()
	feed.Hook(ev)
	if n := len(drain(b)); n != 1 {
		t.Errorf("unsubscribed channel held %d notices, want 1", n)
	}
	feed.Close()
	feed.Close()
	feed.Hook(ev) // ignored after Close
	if got := drain(a); len(got) != 2 || got[0].Kind != leasenotice.NoticeReleased || got[0].MachineID != 3 {
		t.Errorf("subscriber got %+v", got)
	}
	a.Close() // after Feed.Close: nothing to do
	if _, ok := <-feed.Subscribe(0).C(); ok {
		t.Error("subscription to a closed feed is open")
	}
}

// TestFeedConcurrent runs hooks, subscriptions and closes at once for the
// race detector.
func TestFeedConcurrent(t *testing.T) {
	feed := leasenotice.NewFeed()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				feed.Hook(lease.Event{Kind: lease.EventStart, Op: lease.OpRenew})
			}
		}
	}()
	for range 100 {
		s := feed.Subscribe(1)
		<-s.C()
		s.Close()
	}
	close(stop)
	<-done
	feed.Close()
}

func TestNotifierAttempts(t *testing.T) {
	var nf leasenotice.Notifier
	seq := []lease.Event{
		{Kind: lease.EventStart, Op: lease.OpReclaim, MachineID: 7},
		{Kind: lease.EventEnd, Op: lease.OpReclaim, MachineID: 7, Result: "retry", Err: driver.ErrRetry},
		{Kind: lease.EventRetry, Op: lease.OpAcquire, MachineID: -1, Attempt: 1, Delay: time.Second, Result: "retry", Err: driver.ErrRetry},
		{Kind: lease.EventStart, Op: lease.OpReclaim, MachineID: 7}, // attempt 2: reclaim ...
		{Kind: lease.EventEnd, Op: lease.OpReclaim, MachineID: 7, Result: "lost", Err: lease.ErrLost},
		{Kind: lease.EventStart, Op: lease.OpAcquire, MachineID: -1}, // ... then acquire, same attempt
		{Kind: lease.EventEnd, Op: lease.OpAcquire, MachineID: 9, Result: "ok", GrantedTTL: time.Minute},
	}
	var got []leasenotice.Notice
	for _, e := range seq {
		if n, ok := nf.Notice(e); ok {
			got = append(got, n)
		}
	}
	if len(got) != 2 || got[0].Kind != leasenotice.NoticeAcquireRetry || got[0].Attempt != 1 || got[0].Result != "retry" ||
		got[1].Kind != leasenotice.NoticeAcquired || got[1].Attempt != 2 || got[1].MachineID != 9 {
		t.Errorf("notices %+v", got)
	}
}

// TestEventValidUntil: the field added to Event is set on renew events
// and successful acquisitions, and zero elsewhere.
func TestEventValidUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		t0 := time.Now()
		m := r.start()
		time.Sleep(driver.DefaultRenewInterval)
		m.LeaseLost("test")
		synctest.Wait()
		m.Close(context.Background())
		safe := driver.DefaultLeaseDuration - driver.SafetyMargin
		renewAt := driver.DefaultRenewInterval - driver.SafetyMargin
		for _, e := range r.rec.events() {
			var want time.Time
			switch {
			case e.Kind == lease.EventEnd && e.Op == lease.OpAcquire && e.Source == lease.SourceInitial:
				want = t0.Add(safe)
			case e.Kind == lease.EventStart && e.Op == lease.OpRenew:
				want = t0.Add(safe)
			case e.Kind == lease.EventEnd && e.Op == lease.OpRenew:
				want = t0.Add(renewAt + safe)
			case e.Kind == lease.EventEnd && e.Op == lease.OpAcquire:
				want = t0.Add(driver.DefaultRenewInterval + safe)
			}
			if !e.ValidUntil.Equal(want) {
				t.Errorf("%s %s %s: ValidUntil %v, want %v", e.Kind, e.Op, e.Source, e.ValidUntil, want)
			}
		}
	})
}

func TestLossReason(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("x: %w", lease.ErrLost): "lost", lease.ErrExpired: "expired", lease.ErrTimeout: "timeout",
		lease.ErrExternal: "external", lease.ErrIllegalTTL: "illegal_ttl", lease.ErrClosed: "closed", errors.New("?"): "other",
	} {
		if got := leasenotice.LossReason(err); got != want {
			t.Errorf("LossReason(%v) = %q, want %q", err, got, want)
		}
	}
}

func TestNoticeLogValue(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	n := leasenotice.Notice{Kind: leasenotice.NoticeKeepAliveFailed, Strategy: "etcd", Source: lease.SourceScheduled, MachineID: 5,
		Attempt: 2, Delay: time.Second, Reason: driver.ErrRetry, Result: "retry", ValidUntil: time.Now(), Remaining: time.Minute}
	log.Info("lease", "notice", n)
	var rec struct{ Notice map[string]any }
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"kind": "keepalive_failed", "strategy": "etcd", "source": "scheduled", "machine_id": 5.0,
		"attempt": 2.0, "delay": 1e9, "reason": driver.ErrRetry.Error(), "result": "retry", "remaining": 6e10}
	if fmt.Sprint(rec.Notice) != fmt.Sprint(want) {
		t.Errorf("notice logged as %v, want %v", rec.Notice, want)
	}
}
