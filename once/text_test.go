package once_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/once-go/once/once"
)

// TestAppendTextBufferShapes checks AppendText's one-store prefix path
// against String for prefixes of 0 to 12 bytes (the fast path takes up to
// 8) and every spare capacity around the 19 bytes it needs: the text is
// appended after what b holds, which is kept, and nothing is written past
// the returned length.
func TestAppendTextBufferShapes(t *testing.T) {
	ids := []uint64{1, 0xcc08e17d9c800001, 1<<64 - 1, 1 << 63}
	for plen := 0; plen <= 12; plen++ {
		o := once.Options{Prefix: strings.Repeat("p", plen-min(plen, 1)) + strings.Repeat("_", min(plen, 1))}
		for _, v := range ids {
			want, err := o.AppendText(nil, once.FromUint64(v))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != plen+11 || !bytes.HasPrefix(want, []byte(o.Prefix)) {
				t.Fatalf("prefix %q: %q", o.Prefix, want)
			}
			for spare := 0; spare <= 25; spare++ {
				buf := make([]byte, 3, 3+spare)
				copy(buf, "abc")
				full := buf[:cap(buf)]
				for i := 3; i < len(full); i++ {
					full[i] = '#'
				}
				got, err := o.AppendText(buf, once.FromUint64(v))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != "abc"+string(want) {
					t.Fatalf("prefix %q spare %d: %q, want abc%q", o.Prefix, spare, got, want)
				}
				if cap(got) == cap(buf) {
					for i, c := range full[len(got):] {
						if c != '#' {
							t.Fatalf("prefix %q spare %d: byte %d past the text overwritten", o.Prefix, spare, len(got)+i)
						}
					}
				}
				back, err := once.OptionsParse(o, string(got[3:]))
				if err != nil || back.Uint64() != v {
					t.Fatalf("prefix %q: parse %q = %v, %v", o.Prefix, got[3:], back, err)
				}
			}
		}
	}
}
