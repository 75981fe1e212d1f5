package k8slease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// TestOptions: bad options are ErrConfig with a message naming the option;
// good ones get their defaults. No server: New does no I/O.
func TestOptions(t *testing.T) {
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    k8slease.Options
		want string
	}{
		{k8slease.Options{}, "Options.Namespace is empty"},
		{k8slease.Options{Namespace: "Default"}, `Options.Namespace "Default" is not a namespace name`},
		{k8slease.Options{Namespace: "ns", Prefix: "Once"}, `Options.Prefix "Once" must be a DNS label`},
		{k8slease.Options{Namespace: "ns", Prefix: "once-"}, `Options.Prefix "once-" must be a DNS label`},
		{k8slease.Options{Namespace: "ns", Prefix: "once_leases"}, `Options.Prefix "once_leases"`},
		{k8slease.Options{Namespace: "ns", Prefix: strings.Repeat("a", 60)}, "at most 59 bytes"},
		{k8slease.Options{Namespace: "ns", Candidates: -1}, "Options.Candidates -1 is negative"},
	} {
		_, err = k8slease.New(cs, c.o)
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "k8slease: ") {
			t.Errorf("New(%+v): %v; want ErrConfig containing %q", c.o, err, c.want)
		}
	}
	if _, err := k8slease.New(nil, k8slease.Options{Namespace: "ns"}); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("New(nil client): %v", err)
	}
	s, err := k8slease.New(cs, k8slease.Options{Namespace: "ns", Holder: "web-0\n/1"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Prefix() != k8slease.DefaultPrefix || s.LeaseName(17) != "once-leases-17" || s.Namespace() != "ns" || s.Holder() != "web-0?/1" {
		t.Errorf("defaults: prefix %q, name %q, namespace %q, holder %q", s.Prefix(), s.LeaseName(17), s.Namespace(), s.Holder())
	}
	if s.Name() != "kubernetes" || s.Deterministic() {
		t.Errorf("Name %q, Deterministic %v", s.Name(), s.Deterministic())
	}
	// Durations are whole seconds, positive, within int32.
	for _, d := range []time.Duration{0, -time.Second, 1 << 62} {
		if _, err := s.Acquire(t.Context(), d); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Acquire(%v): %v, want ErrConfig", d, err)
		}
	}
}

// TestOpenConfig: Open and LoadConfig report a missing kubeconfig, and
// in-cluster configuration outside a cluster, as ErrConfig.
func TestOpenConfig(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	for _, path := range []string{"", t.TempDir() + "/missing"} {
		if _, err := k8slease.Open(path, k8slease.Options{}); !errors.Is(err, driver.ErrConfig) || !strings.HasPrefix(err.Error(), "k8slease: ") {
			t.Errorf("Open(%q): %v, want ErrConfig", path, err)
		}
	}
	if _, err := k8slease.NewClientset(nil); !errors.Is(err, driver.ErrConfig) {
		t.Errorf("NewClientset(nil): %v", err)
	}
}

// TestDefaultLeaseDuration: a manager left with LeaseDuration zero asks
// for the package's one-minute lease, not the manager's 8h.
func TestDefaultLeaseDuration(t *testing.T) {
	var s driver.Strategy = &k8slease.Strategy{}
	d, ok := s.(driver.DurationDefaulter)
	if !ok || d.DefaultLeaseDuration() != k8slease.LeaseDuration {
		t.Fatalf("Strategy advises no %v lease (DurationDefaulter: %v)", k8slease.LeaseDuration, ok)
	}
}
