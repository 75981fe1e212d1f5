package leasekit

import (
	"errors"
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in string
		id int
		ok bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"511", 511, true},
		{"", 0, false}, {"07", 0, false}, {"+7", 0, false}, {"-1", 0, false},
		{"512", 0, false}, {"1000", 0, false}, {"7a", 0, false}, {" 7", 0, false},
	} {
		id, ok := ParseID(tc.in)
		if ok != tc.ok || (ok && id != tc.id) {
			t.Errorf("ParseID(%q) = %d, %v; want %d, %v", tc.in, id, ok, tc.id, tc.ok)
		}
	}
}

func TestNewTokenString(t *testing.T) {
	a, b := NewTokenString(), NewTokenString()
	if len(a) != 22 || a == b || !Printable(a) {
		t.Fatalf("tokens %q, %q: want two distinct printable 22-character tokens", a, b)
	}
}

func TestCandidates(t *testing.T) {
	free := []int{1, 2, 3, 4, 5, 6, 7, 8}
	if got := Candidates(append([]int(nil), free...), 3, true); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("lowest first: %v", got)
	}
	seen := map[int]bool{}
	for _, id := range Candidates(append([]int(nil), free...), 5, false) {
		if seen[id] {
			t.Fatalf("candidate %d drawn twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 5 {
		t.Fatalf("drew %d candidates, want 5", len(seen))
	}
	if got := Candidates(free[:2], 5, false); len(got) != 2 {
		t.Fatalf("more candidates than free IDs: %v", got)
	}
}

func TestQuote(t *testing.T) {
	if q := Quote(strings.Repeat("x", 100)); len(q) != 40+2+3 {
		t.Fatalf("Quote kept %d bytes: %s", len(q), q)
	}
	if q := Quote("a\x00b"); q != `"a\x00b"` {
		t.Fatalf("Quote = %s", q)
	}
}

func TestErrorf(t *testing.T) {
	sentinel := errors.New("lease: lost")
	cause := errors.New("boom")
	err := Errorf("sqllease", sentinel, "machine ID %d: %w", 7, cause)
	if !errors.Is(err, sentinel) || !errors.Is(err, cause) {
		t.Fatalf("%v does not match both the sentinel and the cause", err)
	}
	if want := "sqllease: machine ID 7: boom: lease: lost"; err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
}
