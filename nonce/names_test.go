package nonce

import (
	"errors"
	"strings"
	"testing"
)

// TestNamesJustPastTheTables: the first Cipher and Kind past the named ones
// get the numbered spelling (not an index out of range).
func TestNamesJustPastTheTables(t *testing.T) {
	if got := Cipher(len(cipherNames)).String(); got != "cipher(5)" {
		t.Errorf("Cipher(5).String() = %q, want cipher(5)", got)
	}
	if got := AES.String(); got != "aes" {
		t.Errorf("AES.String() = %q", got)
	}
	if got := Kind(len(kindNames)).String(); got != "kind(4)" {
		t.Errorf("Kind(4).String() = %q, want kind(4)", got)
	}
	if got := Encrypted.String(); got != "encrypted" {
		t.Errorf("Encrypted.String() = %q", got)
	}
}

// TestQuoteKeeps40Bytes: an error message shows untrusted text of up to 40
// bytes whole, and cuts longer text at 40 bytes with "...".
func TestQuoteKeeps40Bytes(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{strings.Repeat("z", 40), `"` + strings.Repeat("z", 40) + `" `},
		{strings.Repeat("z", 41), `"` + strings.Repeat("z", 40) + `"... `},
	} {
		_, err := ParseCipher(c.in)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "unknown cipher "+c.want) {
			t.Errorf("ParseCipher(%d bytes): %v, want it to quote %s", len(c.in), err, c.want)
		}
	}
}
