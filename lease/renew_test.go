package lease_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

func TestRenewSchedule(t *testing.T) {
	for _, c := range []struct {
		name            string
		duration, every time.Duration
		granted         time.Duration // what the coordinator grants (0: as asked)
		wantAfter       time.Duration
	}{
		{"defaults", 0, 0, 0, 30*time.Minute - 10*time.Second},
		{"interval", time.Minute, 45 * time.Second, 0, 35 * time.Second},
		{"short lease", 40 * time.Second, 25 * time.Second, 0, 15 * time.Second},
		{"coordinator grants less", 0, 0, 45 * time.Second, 25 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, 512)
				r.opts.LeaseDuration, r.opts.RenewInterval = c.duration, c.every
				if c.granted > 0 {
					r.s.set(func(f *fake) {
						f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
							l, err := f.mem.Acquire(ctx, c.granted)
							return l, err
						}
						f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
							return f.mem.Renew(ctx, l, c.granted)
						}
					})
				}
				t0 := time.Now()
				m := r.start()
				ttl := c.granted
				if ttl == 0 {
					ttl = max(c.duration, driver.DefaultLeaseDuration*time.Duration(btoi(c.duration == 0)))
				}
				for i := 1; i <= 3; i++ {
					time.Sleep(c.wantAfter - 1)
					synctest.Wait()
					if n := r.j.count("strategy renew"); n != i-1 {
						t.Fatalf("renewal %d ran early: %d renewals %v after start", i, n, time.Since(t0))
					}
					time.Sleep(time.Nanosecond)
					synctest.Wait()
					if n := r.j.count("strategy renew"); n != i {
						t.Fatalf("renewal %d not run %v after the previous request was sent", i, c.wantAfter)
					}
					// The factories' deadline moved to this request's send
					// time + granted TTL - 10s.
					if _, _, vu := r.f.state(); !vu.Equal(time.Now().Add(ttl - driver.SafetyMargin)) {
						t.Fatalf("after renewal %d validUntil is now + %v, want + %v", i, time.Until(vu), ttl-driver.SafetyMargin)
					}
				}
				if r.j.count("extend") != 3 || r.j.count("disable") != 0 {
					t.Errorf("factory calls:\n%s", r.j)
				}
				m.Close(context.Background())
			})
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRetryThenRecover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		fails := 4
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
		synctest.Wait()
		retries := r.rec.of(lease.EventRetry, lease.OpRenew)
		if len(retries) != 4 {
			t.Fatalf("%d renew retries, want 4", len(retries))
		}
		for i, e := range retries {
			exp := time.Second << i
			if !within(e.Delay, exp+1, exp+time.Second) || !errors.Is(e.Err, driver.ErrRetry) {
				t.Errorf("retry %+v, want attempt %d with a delay in [%v, %v]", e, i+1, exp+1, exp+time.Second)
			}
		}
		if !r.f.generating() || r.j.count("disable") != 0 || len(r.losses()) != 0 || m.Err() != nil {
			t.Errorf("factories disabled or loss reported during retries:\n%s", r.j)
		}
		if r.j.count("extend") != 1 {
			t.Errorf("recovered renewal did not extend the factories:\n%s", r.j)
		}
		m.Close(context.Background())
	})
}

// TestLossPaths drives each loss reason and checks the order: factories
// disabled, then the lost event, then a new lease that
// re-activates the factories.
func TestLossPaths(t *testing.T) {
	for _, c := range []struct {
		name   string
		want   error
		inject func(r *rig, m *lease.Manager)
		// expiresAt: the loss must happen exactly at the end of the safe
		// window of the lease obtained at start.
		expiresAt bool
		released  bool // the lease we stopped trusting is released
		newID     int  // machine ID after re-acquiring
	}{
		{name: "coordinator said lost", want: lease.ErrLost, newID: 1, inject: func(r *rig, m *lease.Manager) {
			r.s.mem.Steal(0, time.Hour)
		}},
		{name: "local expiry", want: lease.ErrExpired, expiresAt: true, released: true, inject: func(r *rig, m *lease.Manager) {
			r.s.set(func(f *fake) {
				f.renew = func(context.Context, driver.Lease, time.Duration) (driver.Lease, error) {
					return driver.Lease{}, errRetry
				}
			})
		}},
		{name: "illegal TTL", want: lease.ErrIllegalTTL, released: true, inject: func(r *rig, m *lease.Manager) {
			r.s.set(func(f *fake) {
				f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
					f.set(func(f *fake) { f.renew = nil }) // once
					return f.mem.Renew(ctx, l, 29*time.Second)
				}
			})
		}},
		{name: "external", want: lease.ErrExternal, released: true, inject: func(r *rig, m *lease.Manager) {
			time.Sleep(time.Minute)
			m.LeaseLost("split brain alarm")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, 512)
				t0 := time.Now()
				m := r.start()
				c.inject(r, m)
				time.Sleep(10 * time.Hour)
				synctest.Wait()

				iDis, dis, ok := r.j.find(0, "disable")
				if !ok {
					t.Fatalf("factories never disabled:\n%s", r.j)
				}
				iEv, _, ok2 := r.j.find(iDis, "event lost  ")
				iAct, _, ok3 := r.j.find(iDis, "activate")
				if !ok2 || !ok3 || iAct < iEv {
					t.Fatalf("want disable, then the lost event, then activate with a new machine ID:\n%s", r.j)
				}
				if c.expiresAt && !dis.at.Equal(t0.Add(driver.DefaultLeaseDuration-driver.SafetyMargin)) {
					t.Errorf("disabled %v after start, want exactly the 8h - 10s safe window", dis.at.Sub(t0))
				}
				if _, rel, ok := r.j.find(iDis, "strategy release"); ok != c.released || ok && rel.at.After(r.j.entries[iAct].at) {
					t.Errorf("release of the untrusted lease: %v, want %v (before re-acquiring):\n%s", ok, c.released, r.j)
				}
				lost := r.losses()
				if len(lost) != 1 || !errors.Is(lost[0], c.want) {
					t.Errorf("lost events %v, want one with %v", lost, c.want)
				}
				for _, other := range []error{lease.ErrLost, lease.ErrExpired, lease.ErrTimeout, lease.ErrExternal, lease.ErrIllegalTTL} {
					if other != c.want && len(lost) > 0 && errors.Is(lost[0], other) {
						t.Errorf("reason %v also matches %v", lost[0], other)
					}
				}
				ev := r.rec.of(lease.EventLost, "")
				if len(ev) != 1 || !errors.Is(ev[0].Err, c.want) || ev[0].MachineID != 0 {
					t.Errorf("lost events %+v", ev)
				}
				if m.MachineID() != c.newID || m.Err() != nil || !r.f.generating() {
					t.Errorf("after re-acquiring: machine ID %d, Err %v, generating %v", m.MachineID(), m.Err(), r.f.generating())
				}
				m.Close(context.Background())
			})
		})
	}
}

// TestLostEventRemainingTTL: a lost event's TTL is what was left of the
// granted TTL.
func TestLostEventRemainingTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		time.Sleep(time.Hour)
		m.LeaseLost("test")
		synctest.Wait()
		ev := r.rec.of(lease.EventLost, "")
		// Renewed at 29m50s and 59m40s; an hour in, 8h - 20s remain.
		if len(ev) != 1 || ev[0].TTL != 8*time.Hour-20*time.Second {
			t.Errorf("lost events %+v", ev)
		}
		m.Close(context.Background())
	})
}

func TestDeterministicNotReacquired(t *testing.T) {
	for _, reacquire := range []bool{false, true} {
		t.Run(fmt.Sprint("ReacquireDeterministic=", reacquire), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, 512)
				r.s.det = true
				r.opts.ReacquireDeterministic = reacquire
				m := r.start()
				r.s.mem.Steal(0, time.Minute)
				time.Sleep(time.Hour)
				synctest.Wait()
				acquires := r.j.count("strategy acquire")
				if !reacquire {
					select {
					case <-m.Done():
					default:
						t.Fatal("Done not closed after a deterministic lease was lost")
					}
					if !errors.Is(m.Err(), lease.ErrLost) || acquires != 1 || r.f.generating() || m.MachineID() != -1 {
						t.Errorf("Err %v, %d acquisitions, generating %v", m.Err(), acquires, r.f.generating())
					}
				} else if acquires != 2 || m.Err() != nil || !r.f.generating() {
					t.Errorf("with ReacquireDeterministic: %d acquisitions, Err %v", acquires, m.Err())
				}
				if err := m.Close(context.Background()); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
		})
	}
}

func TestIllegalTTLWithoutHotLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		// From now on the coordinator grants only 20s.
		r.s.set(func(f *fake) {
			f.acquire = func(ctx context.Context, d time.Duration) (driver.Lease, error) {
				return f.mem.Acquire(ctx, 20*time.Second)
			}
			f.renew = func(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
				return f.mem.Renew(ctx, l, 20*time.Second)
			}
		})
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		// One renewal, then re-acquisitions backing off from 1s to the 30m
		// renew interval: about 11 ramping up, then 2 an hour.
		calls := r.j.count("strategy acquire") + r.j.count("strategy renew")
		if calls > 70 {
			t.Errorf("%d strategy calls in 24h of illegal TTLs", calls)
		}
		if n := len(r.losses()); n != 1 {
			t.Errorf("%d lost events, want one", n)
		}
		if r.f.generating() || m.MachineID() != -1 || !errors.Is(m.Err(), lease.ErrIllegalTTL) {
			t.Errorf("generating %v, machine ID %d, Err %v", r.f.generating(), m.MachineID(), m.Err())
		}
		if r.s.mem.Held() != 0 {
			t.Errorf("%d illegal leases left held", r.s.mem.Held())
		}
		for _, e := range r.rec.of(lease.EventRetry, lease.OpAcquire) {
			if e.Delay > 30*time.Minute {
				t.Errorf("retry delay %v above the renew interval", e.Delay)
			}
		}
		m.Close(context.Background())
	})
}
