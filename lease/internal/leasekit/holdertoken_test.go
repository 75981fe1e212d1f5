package leasekit

import "testing"

func TestHolderToken(t *testing.T) {
	tok := NewTokenString()
	for _, tc := range []struct{ holder, value string }{
		{"web-1/42", tok + "|web-1/42"},
		{"", tok},
		{"a|b", tok + "|a|b"},
	} {
		v := HolderToken(tok, tc.holder)
		if v != tc.value || HolderOf(v) != tc.holder {
			t.Errorf("HolderToken(%q) = %q, holder %q; want %q", tc.holder, v, HolderOf(v), tc.value)
		}
	}
	for _, v := range []string{"", "released", tok[:21] + "|x", tok + "x|y"} {
		if h := HolderOf(v); h != "" {
			t.Errorf("HolderOf(%q) = %q, want none", v, h)
		}
	}
}
