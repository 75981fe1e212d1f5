package redislease

import (
	"strings"
	"testing"
	"time"
)

// TestParseList decodes the list scripts' {id, value, pttl, ...} replies
// and refuses the malformed ones: a length not a multiple of 3, a wrong
// type, an ID outside 0..511, IDs not strictly ascending.
func TestParseList(t *testing.T) {
	tok := strings.Repeat("t", 22)
	r := []any{int64(0), tok + "|host/1", int64(1500), int64(511), tok, int64(-1)}
	slots, err := parseList(r)
	if err != nil {
		t.Fatalf("parseList = %v", err)
	}
	if len(slots) != 2 {
		t.Fatalf("parseList = %+v, want 2 slots", slots)
	}
	if s := slots[0]; s.MachineID != 0 || s.TTL != 1500*time.Millisecond || s.Holder != "host/1" || s.Token != tok+"|host/1" {
		t.Errorf("slot 0 = %+v", s)
	}
	if s := slots[1]; s.MachineID != 511 || s.TTL != 0 || s.Holder != "" || s.Token != tok {
		t.Errorf("slot 1 = %+v", s)
	}
	if slots, err := parseList(nil); err != nil || len(slots) != 0 {
		t.Errorf("parseList(nil) = %+v, %v", slots, err)
	}
	for name, bad := range map[string][]any{
		"length":     {int64(1), tok, int64(5), int64(2)},
		"id type":    {"1", tok, int64(5)},
		"value type": {int64(1), int64(7), int64(5)},
		"ttl type":   {int64(1), tok, "5"},
		"id 512":     {int64(512), tok, int64(5)},
		"id -1":      {int64(-1), tok, int64(5)},
		"duplicate":  {int64(3), tok, int64(5), int64(3), tok, int64(5)},
		"descending": {int64(4), tok, int64(5), int64(3), tok, int64(5)},
	} {
		if slots, err := parseList(bad); err == nil {
			t.Errorf("%s: parseList(%v) = %+v, want an error", name, bad, slots)
		}
	}
}
