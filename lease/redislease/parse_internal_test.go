package redislease

import (
	"errors"
	"strings"
	"testing"
)

// TestConnectedReplicas reads connected_slaves from INFO replication: a
// count of 0 or more is read, anything else or no line is unreadable.
func TestConnectedReplicas(t *testing.T) {
	for info, want := range map[string]struct {
		n  int
		ok bool
	}{
		"# Replication\r\nrole:master\r\nconnected_slaves:0\r\n": {0, true},
		"connected_slaves:2\r\nslave0:ip=x\r\n":                  {2, true},
		"connected_slaves:-1\r\n":                                {-1, false},
		"connected_slaves:x\r\n":                                 {0, false},
		"role:master\r\n":                                        {0, false},
		"":                                                       {0, false},
	} {
		if n, ok := connectedReplicas(info); n != want.n || ok != want.ok {
			t.Errorf("connectedReplicas(%q) = %d, %v, want %d, %v", info, n, ok, want.n, want.ok)
		}
	}
}

// TestPlausible: a version or policy read from the server goes into a
// message when it is 1..20 printable bytes.
func TestPlausible(t *testing.T) {
	for v, want := range map[string]bool{
		"":                      false,
		"7.2.4":                 true,
		strings.Repeat("9", 20): true,
		strings.Repeat("9", 21): false,
		"7.2\x00":               false,
	} {
		if got := plausible(v); got != want {
			t.Errorf("plausible(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestFirstIs: a script wrote when its reply's first element is the
// given integer.
func TestFirstIs(t *testing.T) {
	wrote := firstIs(1)
	for _, c := range []struct {
		r    []any
		want bool
	}{
		{nil, false},
		{[]any{int64(1)}, true},
		{[]any{int64(1), "x"}, true},
		{[]any{int64(0)}, false},
		{[]any{int64(-1)}, false},
		{[]any{"1"}, false},
	} {
		if got := wrote(c.r); got != c.want {
			t.Errorf("firstIs(1)(%v) = %v, want %v", c.r, got, c.want)
		}
	}
}

// TestErrSuffix: the INFO replication error, when there is one, is named
// after a colon.
func TestErrSuffix(t *testing.T) {
	if got := errSuffix(nil); got != "" {
		t.Errorf("errSuffix(nil) = %q, want \"\"", got)
	}
	if got := errSuffix(errors.New("ERR forbidden")); got != ": ERR forbidden" {
		t.Errorf("errSuffix(ERR forbidden) = %q", got)
	}
}
