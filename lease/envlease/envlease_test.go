package envlease_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/leasetest"
)

func TestConformance(t *testing.T) {
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			t.Setenv("LEASETEST_POD", "web-17")
			return func() driver.Strategy { return envlease.New("LEASETEST_POD", 3) }
		},
		Deterministic: true,
	})
}

func TestMachineID(t *testing.T) {
	for _, c := range []struct {
		value  string
		offset int
		want   int
	}{
		{"web-0", 0, 0},
		{"web-3", 0, 3},
		{"web-3", 100, 103},
		{"7", 0, 7},
		{"db-2-replica-511", 0, 511},
		{"web-007", 0, 7},
		{"web-10", -10, 0},
		{"web-500", 11, 511},
	} {
		t.Setenv("POD_NAME", c.value)
		id, err := envlease.New("POD_NAME", c.offset).MachineID()
		if err != nil || id != c.want {
			t.Errorf("POD_NAME=%q offset %d: %d, %v; want %d", c.value, c.offset, id, err, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		set    bool
		value  string
		offset int
		want   string
	}{
		{false, "", 0, "envlease: environment variable POD_NAME is not set"},
		{true, "", 0, `envlease: POD_NAME="" does not end in decimal digits`},
		{true, "web", 0, `envlease: POD_NAME="web" does not end in decimal digits`},
		{true, "web-3a", 0, `envlease: POD_NAME="web-3a" does not end in decimal digits`},
		{true, "web-512", 0, `envlease: POD_NAME="web-512": ordinal 512 plus offset 0 is outside 0..511`},
		{true, "web-500", 12, `envlease: POD_NAME="web-500": ordinal 500 plus offset 12 is outside 0..511`},
		{true, "web-3", -4, `envlease: POD_NAME="web-3": ordinal 3 plus offset -4 is outside 0..511`},
		{true, "web-99999999999999999999999", 0, "ordinal 99999999999999999999999 plus offset 0 is outside 0..511"},
		{true, strings.Repeat("x", 100), 0, `envlease: POD_NAME="` + strings.Repeat("x", 40) + `..." does not end`},
		{true, strings.Repeat("x", 40), 0, `envlease: POD_NAME="` + strings.Repeat("x", 40) + `" does not end`}, // 40 bytes: shown whole
	} {
		if c.set {
			t.Setenv("POD_NAME", c.value)
		} else {
			t.Setenv("POD_NAME", "unset below")
			unsetenv(t, "POD_NAME")
		}
		s := envlease.New("POD_NAME", c.offset)
		_, err := s.MachineID()
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("POD_NAME=%q offset %d: %v; want ErrConfig %q", c.value, c.offset, err, c.want)
		}
		if _, err2 := s.Acquire(t.Context(), driver.MinLeaseDuration); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Acquire: %v, MachineID: %v", err2, err)
		}
	}
	if _, err := envlease.New("", 0).MachineID(); !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "no environment variable named") {
		t.Errorf("empty variable name: %v", err)
	}
}

// unsetenv removes a variable for the rest of the test (after t.Setenv
// registered its restoration).
func unsetenv(t *testing.T, name string) {
	t.Helper()
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

func TestPodIndexConformance(t *testing.T) {
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			t.Setenv("LEASETEST_POD_INDEX", "17")
			return func() driver.Strategy { return envlease.PodIndex("LEASETEST_POD_INDEX", 3) }
		},
		Deterministic: true,
	})
}

// TestPodIndex: the pod-index label's value is the ordinal; the whole
// value must be digits; a missing variable and an empty one (no label)
// are refused with the fix.
func TestPodIndex(t *testing.T) {
	for _, c := range []struct {
		value  string
		offset int
		want   int
	}{{"0", 0, 0}, {"3", 0, 3}, {"3", 100, 103}, {"511", 0, 511}, {"10", -10, 0}} {
		t.Setenv("POD_INDEX", c.value)
		id, err := envlease.PodIndex("POD_INDEX", c.offset).MachineID()
		if err != nil || id != c.want {
			t.Errorf("POD_INDEX=%q offset %d: %d, %v; want %d", c.value, c.offset, id, err, c.want)
		}
	}
	for _, c := range []struct {
		set   bool
		value string
		want  string
	}{
		{false, "", "envlease: environment variable POD_INDEX is not set: fill it from the pod's apps.kubernetes.io/pod-index label with the Downward API (fieldRef metadata.labels['apps.kubernetes.io/pod-index'])"},
		{true, "", "envlease: POD_INDEX is empty: the pod has no apps.kubernetes.io/pod-index label (StatefulSet pods have it from Kubernetes 1.28 on"},
		{true, "web-3", `envlease: POD_INDEX="web-3" is not a pod index (decimal digits)`},
		{true, " 3", `envlease: POD_INDEX=" 3" is not a pod index`},
		{true, "512", `envlease: POD_INDEX="512": ordinal 512 plus offset 0 is outside 0..511`},
	} {
		if c.set {
			t.Setenv("POD_INDEX", c.value)
		} else {
			t.Setenv("POD_INDEX", "unset below")
			unsetenv(t, "POD_INDEX")
		}
		_, err := envlease.PodIndex("POD_INDEX", 0).Acquire(t.Context(), driver.MinLeaseDuration)
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("POD_INDEX=%q (set %v): %v; want ErrConfig %q", c.value, c.set, err, c.want)
		}
	}
	if envlease.PodIndexLabel != "apps.kubernetes.io/pod-index" {
		t.Errorf("PodIndexLabel = %q", envlease.PodIndexLabel)
	}
}
