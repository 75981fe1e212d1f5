package k8slease_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// TestDNSLabels: Options.Prefix and Options.Namespace are DNS labels:
// lowercase letters ('a' to 'z'), digits ('0' to '9') and '-' inside,
// at most 59 bytes for the prefix and 63 for the namespace. The bytes just
// outside each range are refused. No server: New does no I/O.
func TestDNSLabels(t *testing.T) {
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	good := []string{"a", "z", "0", "9", "a-z", "0-9", "a--9", "az09"}
	bad := []string{"-a", "a-", "-", "`", "{", "/", ":", "a`", "a{", "a/", "a:", "a_b", "aB"}
	for _, p := range append(good, strings.Repeat("z", 59)) {
		if _, err := k8slease.New(cs, k8slease.Options{Namespace: "ns", Prefix: p}); err != nil {
			t.Errorf("Prefix %q: %v", p, err)
		}
	}
	for _, p := range append(bad, strings.Repeat("z", 60)) {
		if _, err := k8slease.New(cs, k8slease.Options{Namespace: "ns", Prefix: p}); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Prefix %q: %v, want ErrConfig", p, err)
		}
	}
	for _, ns := range append(good, strings.Repeat("z", 63)) {
		if _, err := k8slease.New(cs, k8slease.Options{Namespace: ns}); err != nil {
			t.Errorf("Namespace %q: %v", ns, err)
		}
	}
	for _, ns := range append(bad, strings.Repeat("z", 64)) {
		if _, err := k8slease.New(cs, k8slease.Options{Namespace: ns}); !errors.Is(err, driver.ErrConfig) {
			t.Errorf("Namespace %q: %v, want ErrConfig", ns, err)
		}
	}
}
