package k8s_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
)

// defaultKubeconfig is where ../shared/tools/k8s-apiserver.sh (and CI)
// write the kubeconfig of the test API server.
const defaultKubeconfig = "/tmp/once-k8s/kubeconfig"

// kubeconfigPath is ONCE_TEST_KUBECONFIG, or the test server's default.
func kubeconfigPath() string {
	if p := os.Getenv("ONCE_TEST_KUBECONFIG"); p != "" {
		return p
	}
	return defaultKubeconfig
}

// restConfig loads the test server's configuration, without client-side
// rate limiting (tests make many requests from one process), after
// checking that the server answers /readyz. It skips the test with a
// one-line reason when it does not, or fails it when ONCE_TEST_REQUIRE=1.
func restConfig(t testing.TB) *rest.Config {
	t.Helper()
	path := kubeconfigPath()
	if _, err := os.Stat(path); err != nil {
		testenv.Unavailable(t, "no kubeconfig at "+path+" (set ONCE_TEST_KUBECONFIG, or run ../shared/tools/k8s-apiserver.sh start)")
		return nil
	}
	cfg, _, err := k8slease.LoadConfig(path)
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", path, err)
	}
	cfg.QPS = -1
	if err := ready(cfg, 3*time.Second); err != nil {
		testenv.Unavailable(t, "kube-apiserver at "+cfg.Host+" not ready: "+firstLine(err.Error())+" (run ../shared/tools/k8s-apiserver.sh start)")
	}
	return cfg
}

// ready asks the server at cfg for /readyz.
func ready(cfg *rest.Config, timeout time.Duration) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// clientset returns a clientset of the strategy's own kind on cfg.
func clientset(t testing.TB, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := k8slease.NewClientset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// namespace creates a fresh namespace and, when the test ends, deletes its
// Leases and the namespace (finalizing it: no namespace controller runs
// beside the test API server).
func namespace(t testing.TB, cs kubernetes.Interface) string {
	t.Helper()
	name := strings.ReplaceAll(testenv.Unique(t, "k8s"), "_", "-")
	if len(name) > 63 {
		name = name[:20] + name[len(name)-43:]
	}
	ctx := ctxT(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	t.Cleanup(func() { deleteNamespace(cs, name) })
	return name
}

// deleteNamespace deletes ns's Leases and ns itself, best effort.
func deleteNamespace(cs kubernetes.Interface, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = cs.CoordinationV1().Leases(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return
	}
	n, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		return
	}
	n.Spec.Finalizers = nil
	_, _ = cs.CoreV1().Namespaces().Finalize(ctx, n, metav1.UpdateOptions{})
}

// strategy builds a strategy in ns on its own clientset.
func strategy(t testing.TB, cfg *rest.Config, ns string, o k8slease.Options) *k8slease.Strategy {
	t.Helper()
	o.Namespace = ns
	s, err := k8slease.New(clientset(t, cfg), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// getLease reads machine ID id's Lease in ns (prefix p); nil when missing.
func getLease(t testing.TB, cs kubernetes.Interface, ns, name string) *coordv1.Lease {
	t.Helper()
	l, err := cs.CoordinationV1().Leases(ns).Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease %s/%s: %v", ns, name, err)
	}
	return l
}

// discardLogger drops the manager's records.
func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

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

// deadline is the last deadline the manager set.
func (s *skewedFactory) deadline() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.validUntil
}

// shortOptions marks o for lease durations below the production minimum.
func shortOptions(o lease.Options) lease.Options {
	testonly.ShortLeases(&o)
	return o
}
