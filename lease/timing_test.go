package lease

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

func TestTimingFormulas(t *testing.T) {
	const s = time.Second
	prod := newTiming(driver.DefaultLeaseDuration, false)
	for _, c := range []struct {
		name          string
		tm            timing
		ttl, interval time.Duration
		safe, renew   time.Duration
		legal         bool
	}{
		{"defaults", prod, 8 * time.Hour, 30 * time.Minute, 8*time.Hour - 10*s, 30*time.Minute - 10*s, true},
		{"interval beyond the safe window", prod, 60 * s, 55 * s, 50 * s, 40 * s, true},
		{"short legal lease", prod, 30 * s, 15 * s, 20 * s, 5 * s, true},
		{"granted less than asked", prod, 45 * s, 30 * time.Minute, 35 * s, 25 * s, true},
		{"illegal TTL", prod, 29 * s, 15 * s, 19 * s, 5 * s, false},
		{"renewal never at once", prod, 12 * s, 15 * s, 2 * s, time.Second, false},
		{"short leases", newTiming(2*s, true), 2 * s, 500 * time.Millisecond, 1800 * time.Millisecond, 300 * time.Millisecond, true},
		{"short leases illegal", newTiming(2*s, true), 500 * time.Millisecond, 500 * time.Millisecond, 300 * time.Millisecond, 100 * time.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.tm.safe(c.ttl); got != c.safe {
				t.Errorf("safe(%v) = %v, want %v", c.ttl, got, c.safe)
			}
			if got := c.tm.renewAfter(c.interval, c.ttl); got != c.renew {
				t.Errorf("renewAfter(%v, %v) = %v, want %v", c.interval, c.ttl, got, c.renew)
			}
			if got := c.tm.legal(c.ttl); got != c.legal {
				t.Errorf("legal(%v) = %v, want %v", c.ttl, got, c.legal)
			}
		})
	}
}

func TestRenewAfterNeverNonPositive(t *testing.T) {
	tm := newTiming(driver.DefaultLeaseDuration, false)
	for ttl := time.Duration(0); ttl < 40*time.Second; ttl += 250 * time.Millisecond {
		for _, ri := range []time.Duration{0, time.Second, 11 * time.Second, time.Hour} {
			if got := tm.renewAfter(ri, ttl); got <= 0 {
				t.Fatalf("renewAfter(%v, %v) = %v", ri, ttl, got)
			}
		}
	}
}

func TestShortTimingScales(t *testing.T) {
	tm := newTiming(5*time.Second, true)
	if tm.margin != 500*time.Millisecond || tm.minTTL != 1500*time.Millisecond {
		t.Errorf("short timing for 5s = %+v, want margin 500ms, minimum TTL 1.5s", tm)
	}
	if tm := newTiming(5*time.Second, false); tm.margin != driver.SafetyMargin || tm.minTTL != driver.MinLeaseDuration {
		t.Errorf("production timing = %+v", tm)
	}
}

// TestBackoffBounds checks min(base*2^(attempt-1) + jitter, limit, 24h)
// with jitter in [1, base] over many attempts, bases, limits and jitters,
// including the extremes of the jitter.
func TestBackoffBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	jitters := map[string]func(time.Duration) time.Duration{
		"lowest":  func(time.Duration) time.Duration { return 1 },
		"highest": func(b time.Duration) time.Duration { return b },
		"random":  func(b time.Duration) time.Duration { return time.Duration(rng.Int64N(int64(b))) + 1 },
		"out of range": func(b time.Duration) time.Duration {
			return []time.Duration{-5, 0, b + 1, 10 * b}[rng.IntN(4)]
		},
	}
	for name, j := range jitters {
		for _, base := range []time.Duration{startBackoffBase, runBackoffBase, 7 * time.Millisecond} {
			for _, limit := range []time.Duration{time.Millisecond, 3 * time.Second, 30 * time.Minute, 1000 * time.Hour} {
				prev := time.Duration(0)
				for attempt := 1; attempt <= 200; attempt++ {
					exp := base
					for i := 1; i < attempt && exp < 48*time.Hour; i++ {
						exp *= 2
					}
					lo, hi := min(exp+1, limit, maxBackoff), min(exp+base, limit, maxBackoff)
					got := backoff(base, limit, attempt, j)
					if got < lo || got > hi {
						t.Fatalf("%s jitter: backoff(%v, %v, %d) = %v, want within [%v, %v]", name, base, limit, attempt, got, lo, hi)
					}
					if name != "random" && name != "out of range" && got < prev {
						t.Fatalf("%s jitter: backoff decreased at attempt %d: %v after %v", name, attempt, got, prev)
					}
					prev = got
				}
			}
		}
	}
	if got := backoff(time.Second, 0, 3, jitter); got != 0 {
		t.Errorf("backoff with no time left = %v, want 0", got)
	}
	if got := backoff(time.Second, -time.Second, 3, jitter); got != 0 {
		t.Errorf("backoff with negative limit = %v, want 0", got)
	}
}

func TestHandoffNotBefore(t *testing.T) {
	const margin = 10 * time.Second
	prev := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// Neither reading: the local clock stands in, allowing twice the skew
	// less the release hold (up to the margin).
	for _, c := range []struct{ hold, want time.Duration }{
		{0, 2 * time.Second}, {time.Second, time.Second}, {3 * time.Second, -time.Second}, {time.Hour, 2*time.Second - margin},
	} {
		if got := handoffNotBefore(driver.Lease{ReleaseHold: c.hold}, prev, time.Second, margin); !got.Equal(prev.Add(c.want)) {
			t.Errorf("neither reading, hold %v: notBefore now%+v, want now%+v", c.hold, got.Sub(prev), c.want)
		}
	}
	coord := prev.Add(time.Hour)
	if got := handoffNotBefore(driver.Lease{PrevExpiry: prev}, time.Time{}, 1500*time.Millisecond, margin); !got.Equal(prev.Add(1500 * time.Millisecond)) {
		t.Errorf("notBefore = %v, want previous expiry + 1.5s", got)
	}
	// The previous expiry wins over the coordinator's clock when known.
	if got := handoffNotBefore(driver.Lease{PrevExpiry: prev, CoordinatorNow: coord}, time.Time{}, time.Second, margin); !got.Equal(prev.Add(time.Second)) {
		t.Errorf("both readings: notBefore = %v, want previous expiry + 1s", got)
	}
}

// TestHandoffNotBeforeReleaseHold: with only the coordinator's clock, the
// old holder of a free ID stopped at least min(margin, ReleaseHold)
// before it became free (a margin before an expiry, the hold before a
// release freed it), so the bound is CoordinatorNow + skew - that.
func TestHandoffNotBeforeReleaseHold(t *testing.T) {
	coord := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const s = time.Second
	for _, c := range []struct {
		name               string
		skew, margin, hold time.Duration
		want               time.Duration // relative to CoordinatorNow
	}{
		// A released ID may be free at once: the old holder may have
		// stopped just before CoordinatorNow, with its clock skew ahead.
		{"hold 0", s, 10 * s, 0, s},
		{"negative hold counts as 0", s, 10 * s, -5 * s, s},
		{"hold below the margin", s, 10 * s, 300 * time.Millisecond, 700 * time.Millisecond},
		{"hold equals the skew (Redis default)", s, 10 * s, s, 0},
		{"hold above the margin: the margin bounds an expiry", s, 10 * s, time.Minute, -9 * s},
		{"short leases, hold above the margin", 700 * time.Millisecond, 200 * time.Millisecond, s, 500 * time.Millisecond},
		{"short leases, hold below the margin", 700 * time.Millisecond, 200 * time.Millisecond, 50 * time.Millisecond, 650 * time.Millisecond},
	} {
		l := driver.Lease{CoordinatorNow: coord, ReleaseHold: c.hold}
		if got := handoffNotBefore(l, time.Time{}, c.skew, c.margin); !got.Equal(coord.Add(c.want)) {
			t.Errorf("%s (skew %v, margin %v, hold %v): notBefore = coordinator now %+v, want %+v",
				c.name, c.skew, c.margin, c.hold, got.Sub(coord), c.want)
		}
	}
	// PrevExpiry, when reported, decides alone: the hold does not move it.
	prev := coord.Add(-time.Hour)
	if got := handoffNotBefore(driver.Lease{PrevExpiry: prev, CoordinatorNow: coord, ReleaseHold: time.Minute}, time.Time{}, s, 10*s); !got.Equal(prev.Add(s)) {
		t.Errorf("previous expiry and a hold: notBefore = %v, want previous expiry + 1s", got)
	}
}

func TestReclaimNotBefore(t *testing.T) {
	const skew = time.Second
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name                  string
		prev, coordNow, local time.Duration // relative to now; 1 = unknown
		want                  time.Duration // relative to now
	}{
		// A quick restart: the old lease runs for hours yet; the previous
		// incarnation stopped before the coordinator's now.
		{"quick restart", 8 * time.Hour, 0, 1, skew},
		{"coordinator clock ahead", 8 * time.Hour, 300 * time.Millisecond, 1, 300*time.Millisecond + skew},
		// Expired long ago: nothing to wait for.
		{"expired an hour ago", -time.Hour, 0, 1, -time.Hour + skew},
		{"only the expiry known", -time.Hour, 1, 1, -time.Hour + skew},
		{"only the expiry known, in the future", 8 * time.Hour, 1, 1, 8*time.Hour + skew},
		{"only the coordinator's clock known", 1, 0, 1, skew},
		{"nothing known: the local clock, twice the skew", 1, 1, 1, 2 * skew},
		// The same boot's clocks: the previous incarnation's clock.
		{"same boot, quick restart", 8 * time.Hour, 0, -time.Millisecond, -time.Millisecond},
		{"same boot, wall clock stepped back 300ms", 8 * time.Hour, 0, 300 * time.Millisecond, 300 * time.Millisecond},
		{"same boot, wall clock stepped back 5s", 8 * time.Hour, 0, 5 * time.Second, skew},
		{"same boot, expired an hour ago", -time.Hour, 0, -time.Millisecond, -time.Hour + skew},
		{"same boot, nothing reported", 1, 1, 0, 0},
	} {
		l := driver.Lease{}
		if c.prev != 1 {
			l.PrevExpiry = now.Add(c.prev)
		}
		if c.coordNow != 1 {
			l.CoordinatorNow = now.Add(c.coordNow)
		}
		local := time.Time{}
		if c.local != 1 {
			local = now.Add(c.local)
		}
		if got := reclaimNotBefore(l, now, skew, local); !got.Equal(now.Add(c.want)) {
			t.Errorf("%s: notBefore = now %+v, want now %+v", c.name, got.Sub(now), c.want)
		}
	}
}
