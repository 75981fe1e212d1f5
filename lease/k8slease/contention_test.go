package k8slease_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
)

// contendBudget bounds each contender's Acquire in TestContendLastIDs
// and TestContend600: k8slease.AcquireTimeout, what a lease manager on
// Kubernetes gives it. Contenders are decided in a few seconds; the budget
// only matters on an API server slowed by the load of the machine.
const contendBudget = k8slease.AcquireTimeout

// TestContendLastIDs: 20 contenders race for the last 12 free machine IDs
// of a namespace whose other 500 are held, each with a clientset of its
// own on client-go's default rate limits (5 requests a second, bursts of
// 10), as a process would. With one Acquire each ("acquire": ErrConflict
// is not retried), exactly 12 win and the other 8 are told ErrExhausted.
// Through lease managers with a 5s acquire timeout ("manager", as once
// lease hold --acquire-timeout 5s), exactly 12 win.
func TestContendLastIDs(t *testing.T) {
	cfg := restConfig(t)
	const contenders, free = 20, 12
	for _, mode := range []string{"acquire", "manager"} {
		t.Run(mode, func(t *testing.T) {
			ns := namespace(t, clientset(t, cfg))
			fill(t, cfg, ns, func(id int) bool { return id < k8slease.Capacity-free })
			if mode == "manager" {
				contendManagers(t, cfg, ns, contenders, free)
			} else {
				contend(t, cfg, ns, contenders, free)
			}
		})
	}
}

// TestContend600: 600 contenders race for the 512 machine IDs of an empty
// namespace, as the SQL, Redis and etcd strategies are tested, each with
// one Acquire (see TestContendLastIDs): exactly 512 win, the other 88 are
// told ErrExhausted.
func TestContend600(t *testing.T) {
	if testing.Short() {
		t.Skip("600 clientsets racing through the API server: skipped with -short")
	}
	cfg := restConfig(t)
	ns := namespace(t, clientset(t, cfg))
	contend(t, cfg, ns, 600, k8slease.Capacity)
}

// contenders returns n strategies in ns, each on a clientset of its own
// with client-go's default rate limits, as k8slease.Open leaves them, and
// a request timeout of 30s: hundreds of lists of the pool at once, on a
// loaded machine, take longer than the default 5s, and requests given up
// on and sent again only add to the API server's work.
func contenders(t *testing.T, cfg *rest.Config, ns string, n int) []*k8slease.Strategy {
	dc := rest.CopyConfig(cfg)
	dc.QPS, dc.Burst = 0, 0
	strategies := make([]*k8slease.Strategy, n)
	for i := range strategies {
		strategies[i] = strategy(t, dc, ns, k8slease.Options{Holder: "contender-" + strconv.Itoa(i), RequestTimeout: 30 * time.Second})
	}
	return strategies
}

// contend races n contenders for the free machine IDs of ns, of which
// there are free, with one Acquire each, and checks the outcome: exactly
// free winners, no ID won twice, the others told ErrExhausted by a look
// that saw every ID held (the error names the namespace and the count),
// and the API server holding each winner's Lease with its token.
func contend(t *testing.T, cfg *rest.Config, ns string, n, free int) {
	t.Helper()
	var (
		mu        sync.Mutex
		wg        sync.WaitGroup
		won       = map[int]string{}
		exhausted []error
		failed    []error
		start     = make(chan struct{})
	)
	for _, s := range contenders(t, cfg, ns, n) {
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), contendBudget)
			defer cancel()
			l, err := acquireOnce(ctx, s)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				if prev, dup := won[l.MachineID]; dup {
					failed = append(failed, errors.New("machine ID "+strconv.Itoa(l.MachineID)+" won twice: "+prev+" and "+l.Token))
				}
				won[l.MachineID] = l.Token
			case errors.Is(err, lease.ErrExhausted):
				exhausted = append(exhausted, err)
			default:
				failed = append(failed, err)
			}
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d contenders for %d free machine IDs: %d won, %d exhausted, %d failed, in %v",
		n, free, len(won), len(exhausted), len(failed), time.Since(began).Round(time.Millisecond))
	for _, err := range failed[:min(len(failed), 3)] {
		t.Errorf("contender: %v", err)
	}
	if len(won) != free || len(exhausted) != n-free {
		t.Fatalf("%d won, %d exhausted; want %d and %d", len(won), len(exhausted), free, n-free)
	}
	for _, err := range exhausted[:1] {
		if msg := err.Error(); !strings.Contains(msg, strconv.Quote(ns)) || !strings.Contains(msg, "512 of 512 held") {
			t.Errorf("exhaustion error %q does not name the namespace %q and the IDs seen held", msg, ns)
		}
	}
	checkHolders(t, cfg, ns, won)
}

// checkHolders checks that the API server holds machine ID id's Lease
// with won[id]: a holderIdentity, or a holder followed by "/" (a
// manager's, whose token the test does not see).
func checkHolders(t *testing.T, cfg *rest.Config, ns string, won map[int]string) {
	t.Helper()
	list, err := clientset(t, cfg).CoordinationV1().Leases(ns).List(ctxT(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holders := map[string]string{}
	for _, rec := range list.Items {
		if h := rec.Spec.HolderIdentity; h != nil {
			holders[rec.Name] = *h
		}
	}
	for id, want := range won {
		name := k8slease.DefaultPrefix + "-" + strconv.Itoa(id)
		h := holders[name]
		if h != want && !(strings.HasSuffix(want, "/") && strings.HasPrefix(h, want)) {
			t.Fatalf("Lease %s held by %q; its winner is %q", name, h, want)
		}
	}
}

// acquireOnce makes one Acquire of an hour through s; an ErrRetry (an API
// server slow under the race) is retried while ctx lasts, backing off as
// the lease manager would, after releasing a claim whose outcome is
// unknown. Every other outcome is returned as it is: ErrConflict is not
// retried.
func acquireOnce(ctx context.Context, s *k8slease.Strategy) (lease.Lease, error) {
	for pause := 100 * time.Millisecond; ; pause = min(2*pause, 5*time.Second) {
		l, err := s.Acquire(ctx, time.Hour)
		if !errors.Is(err, lease.ErrRetry) || ctx.Err() != nil {
			return l, err
		}
		if l.Token != "" {
			rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = s.Release(rctx, l)
			cancel()
		}
		time.Sleep(pause/2 + rand.N(pause/2))
	}
}

// contendManagers races n lease managers with a 5s acquire timeout for
// the free machine IDs of ns, of which there are free: exactly free of
// them start, on distinct IDs that the API server shows them holding; the
// others time out (a manager retries ErrExhausted until then). It logs how
// many of those saw ErrExhausted: on a loaded machine a manager may run
// out of its 5s before a look at the pool completes.
func contendManagers(t *testing.T, cfg *rest.Config, ns string, n, free int) {
	t.Helper()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		won      = map[int]string{}
		timedOut int
		sawNone  int
		failed   []error
		start    = make(chan struct{})
	)
	for _, s := range contenders(t, cfg, ns, n) {
		wg.Go(func() {
			f, err := nonce.New(nonce.Config{})
			if err != nil {
				panic(err)
			}
			var exhausted atomic.Bool
			<-start
			m, err := lease.Start(context.Background(), s, lease.Options{
				Factories:      []lease.Factory{f},
				LeaseDuration:  k8slease.LeaseDuration,
				RenewInterval:  k8slease.RenewInterval,
				AcquireTimeout: 5 * time.Second,
				Logger:         discardLogger(),
				Events: func(e lease.Event) {
					if e.Kind == lease.EventEnd && e.Op == lease.OpAcquire && errors.Is(e.Err, lease.ErrExhausted) {
						exhausted.Store(true)
					}
				},
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				t.Cleanup(func() { m.Close(context.Background()) })
				if prev, dup := won[m.MachineID()]; dup {
					failed = append(failed, errors.New("machine ID "+strconv.Itoa(m.MachineID())+" won twice: by "+prev+" and "+s.Holder()))
				}
				won[m.MachineID()] = s.Holder() + "/"
			case errors.Is(err, lease.ErrTimeout):
				timedOut++
				if exhausted.Load() {
					sawNone++
				}
			default:
				failed = append(failed, err)
			}
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d managers for %d free machine IDs: %d started, %d timed out (%d of them told ErrExhausted), %d failed, in %v",
		n, free, len(won), timedOut, sawNone, len(failed), time.Since(began).Round(time.Millisecond))
	for _, err := range failed[:min(len(failed), 3)] {
		t.Errorf("manager: %v", err)
	}
	if len(won) != free || timedOut != n-free {
		t.Fatalf("%d started, %d timed out; want %d and %d", len(won), timedOut, free, n-free)
	}
	checkHolders(t, cfg, ns, won)
}
