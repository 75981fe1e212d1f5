package leasekit

import "testing"

func TestWithKeySplitKey(t *testing.T) {
	for _, c := range []struct{ holder, fp, recorded, wantFP string }{
		{"host/1", "1a2b3c4d", "key=1a2b3c4d host/1", "1a2b3c4d"},
		{"", "1a2b3c4d", "key=1a2b3c4d", "1a2b3c4d"},
		{"host/1", "", "host/1", ""},
		{"host/1", "1A2B3C4D", "host/1", ""}, // not a fingerprint: nothing recorded
		{"host/1", "1a2b3c", "host/1", ""},
		{"key=1a2b3c4dx", "", "key=1a2b3c4dx", ""}, // a holder that merely looks like one
	} {
		got := WithKey(c.holder, c.fp)
		if got != c.recorded {
			t.Errorf("WithKey(%q, %q) = %q, want %q", c.holder, c.fp, got, c.recorded)
		}
		h, fp := SplitKey(got)
		wantH := c.holder
		if c.wantFP == "" {
			wantH = c.recorded
		}
		if h != wantH || fp != c.wantFP {
			t.Errorf("SplitKey(%q) = %q, %q; want %q, %q", got, h, fp, wantH, c.wantFP)
		}
	}
	// Cut short (a narrow SQL column): no fingerprint, never a wrong one.
	if h, fp := SplitKey("key=1a2b"); fp != "" || h != "key=1a2b" {
		t.Errorf("SplitKey of a cut value = %q, %q", h, fp)
	}
}
