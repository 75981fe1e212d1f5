package k8slease_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
)

// childEnv selects what a child process of the test binary runs: "holder"
// (a lease manager generating nonces) or "racer" (contenders racing for
// IDs). Its parameters come in further K8SLEASE_* variables.
const childEnv = "K8SLEASE_CHILD"

func TestMain(m *testing.M) {
	// client-go logs transport errors through klog; the tests check them
	// as returned errors.
	testonly.SkipPackage()
	klog.SetLogger(logr.Discard())
	switch os.Getenv(childEnv) {
	case "holder":
		os.Exit(holderMain())
	case "racer":
		os.Exit(racerMain())
	}
	os.Exit(m.Run())
}

// out writes lines to stdout unbuffered, one write each, so that a parent
// that kills the process has every line written before the kill.
var out = struct {
	sync.Mutex
	f *os.File
}{f: os.Stdout}

func say(format string, args ...any) {
	out.Lock()
	defer out.Unlock()
	fmt.Fprintf(out.f, format+"\n", args...)
}

func envDuration(name string) time.Duration {
	d, _ := time.ParseDuration(os.Getenv(name))
	return d
}

// childStrategy opens the strategy a child uses, from K8SLEASE_KUBECONFIG
// and K8SLEASE_NS, on a clientset of its own without client-side rate
// limiting.
func childStrategy(o k8slease.Options) (*k8slease.Strategy, error) {
	cfg, _, err := k8slease.LoadConfig(os.Getenv("K8SLEASE_KUBECONFIG"))
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	cs, err := k8slease.NewClientset(cfg)
	if err != nil {
		return nil, err
	}
	o.Namespace = os.Getenv("K8SLEASE_NS")
	return k8slease.New(cs, o)
}

// skewedFactory is a nonce factory whose process's wall clock is off by
// skew: its timestamps are time.Now()+skew. time.Time.Add moves the
// monotonic reading too, so the manager's deadlines (on the true clock)
// are shifted alike before they reach it: only the wall time is off. The
// manager hands it over through leasehook, and it records the last
// deadline the manager set.
type skewedFactory struct {
	f    *nonce.Factory
	skew time.Duration

	mu         sync.Mutex
	validUntil time.Time // the last deadline the manager set, on the true clock
}

func newSkewedFactory(skew time.Duration) *skewedFactory {
	f, err := nonce.New(nonce.Config{Now: func() time.Time { return time.Now().Add(skew) }})
	if err != nil {
		panic(err)
	}
	return &skewedFactory{f: f, skew: skew}
}

func (s *skewedFactory) Activate(id int, notBefore, validUntil time.Time) error {
	s.set(validUntil)
	return s.f.Activate(id, notBefore, validUntil.Add(s.skew))
}

func (s *skewedFactory) Enable(validUntil time.Time) error {
	s.set(validUntil)
	return s.f.Enable(validUntil.Add(s.skew))
}

func (s *skewedFactory) Extend(validUntil time.Time) {
	s.set(validUntil)
	s.f.Extend(validUntil.Add(s.skew))
}

func (s *skewedFactory) Disable() { s.f.Disable() }

func (s *skewedFactory) set(validUntil time.Time) {
	s.mu.Lock()
	s.validUntil = validUntil
	s.mu.Unlock()
}

// stamp is the wall time a sortable 64-bit nonce carries (millisecond
// precision).
func stamp(v uint64) time.Time {
	return time.UnixMilli(nonce.DefaultEpochUnixMilli + int64(v>>22))
}

// shortOptions marks o for lease durations below the production minimum.
func shortOptions(o lease.Options) lease.Options {
	testonly.ShortLeases(&o)
	return o
}

// holderMain runs a lease manager on the strategy with its wall clock
// skewed by K8SLEASE_SKEW, leases of K8SLEASE_LEASE (renewed every half),
// and a factory on the same skewed clock that generates a sortable nonce
// every millisecond or so. It prints "id N" once it holds machine ID N,
// then "ts <unix ms>" for each nonce's timestamp. On SIGTERM it closes the
// manager (releasing the lease), prints "closed" and exits.
func holderMain() int {
	skew := envDuration("K8SLEASE_SKEW")
	s, err := childStrategy(k8slease.Options{Holder: "holder", LowestFirst: true})
	if err != nil {
		say("error %v", err)
		return 1
	}
	k8slease.SetWallClock(s, func() time.Time { return time.Now().Add(skew) })
	d := envDuration("K8SLEASE_LEASE")
	f := newSkewedFactory(skew)
	m, err := lease.Start(leasehook.With(context.Background(), f), s, shortOptions(lease.Options{
		LeaseDuration: d,
		RenewInterval: d / 2,
		Logger:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}))
	if err != nil {
		say("error %v", err)
		return 1
	}
	say("id %d", m.MachineID())
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	for {
		select {
		case <-term:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := m.Close(ctx)
			cancel()
			say("closed %v", err)
			return 0
		default:
		}
		if v, err := f.f.Sortable64(); err == nil {
			say("ts %d", stamp(v).UnixMilli())
		}
		time.Sleep(time.Millisecond)
	}
}

// racerMain makes K8SLEASE_RACERS contenders, each its own strategy and
// clientset, prints "ready", waits for a line on stdin, then lets every
// contender Acquire at once (retrying ErrConflict and ErrRetry, as the
// manager would) and prints "won <id> <token>", "exhausted" or
// "error <message>" for each.
func racerMain() int {
	n, _ := strconv.Atoi(os.Getenv("K8SLEASE_RACERS"))
	strategies := make([]*k8slease.Strategy, n)
	for i := range strategies {
		// Generous: 100 contenders decoding lists under -race on a
		// loaded machine are slow; the race is about exclusivity.
		s, err := childStrategy(k8slease.Options{RequestTimeout: 30 * time.Second})
		if err != nil {
			say("error %v", err)
			return 1
		}
		strategies[i] = s
	}
	say("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		say("error stdin: %v", err)
		return 1
	}
	var wg sync.WaitGroup
	for _, s := range strategies {
		wg.Go(func() {
			for {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				l, err := s.Acquire(ctx, time.Hour)
				cancel()
				switch {
				case err == nil:
					say("won %d %s", l.MachineID, l.Token)
				case errors.Is(err, driver.ErrExhausted):
					say("exhausted")
				case errors.Is(err, driver.ErrConflict) || errors.Is(err, driver.ErrRetry):
					if l.Token != "" { // a claim whose outcome is unknown
						rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
						_ = s.Release(rctx, l)
						cancel()
					}
					time.Sleep(time.Millisecond)
					continue
				default:
					say("error %v", err)
				}
				return
			}
		})
	}
	wg.Wait()
	return 0
}
