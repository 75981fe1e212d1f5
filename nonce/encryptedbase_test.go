package nonce

import (
	"encoding/binary"
	"testing"
)

// TestEncryptedBaseSequence: encrypted nonces are drawn from the counter
// generator of their size (the default) or, with EncryptedBase Sortable,
// from the sortable one, and share its sequence: decrypted, an encrypted
// nonce is the value that generator would have returned next. The 96-bit
// case is run with Speck (all 12 bytes from the 96-bit generators) and
// with Blowfish (8 bytes from the 64-bit generators, then 4 zero bytes).
func TestEncryptedBaseSequence(t *testing.T) {
	for _, base := range []Kind{0, Counter, Sortable} {
		for _, c96 := range []Cipher{Speck, Blowfish} {
			clk := newFakeClock(testStart)
			f := mustNew(t, Config{BaseKey: testBaseKey, Cipher96: c96, Cipher128: Speck, Now: clk.Now, Fixed: true, MachineID: 7, EncryptedBase: base})
			sortable := base == Sortable

			next64 := func() uint64 {
				v, err := f.Counter64()
				if sortable {
					v, err = f.Sortable64()
				}
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			first := next64()
			e64, err := f.Encrypted64()
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := f.Decrypt64(e64); d != first+1 {
				t.Errorf("base %s: Encrypted64 decrypts to %x, want the next base value %x", base, d, first+1)
			}

			e96, err := f.Encrypted96()
			if err != nil {
				t.Fatal(err)
			}
			d96, _ := f.Decrypt96(e96)
			if c96 == Blowfish {
				if hi, tail := binary.BigEndian.Uint64(d96[:8]), d96[8:]; hi != first+2 || [4]byte(tail) != [4]byte{} {
					t.Errorf("base %s, Blowfish: Encrypted96 decrypts to %x, want the next 64-bit base value %x and 4 zero bytes", base, d96, first+2)
				}
			} else {
				v96, err := f.Counter96()
				if sortable {
					v96, err = f.Sortable96()
				}
				if err != nil {
					t.Fatal(err)
				}
				// d96 was drawn first, so it is v96's predecessor.
				if ts, m, n := split96(d96); !sameFieldsBut(ts, m, n, v96, 1) {
					t.Errorf("base %s, Speck: Encrypted96 decrypts to ts %d machine %d count %d, not the value before %x", base, ts, m, n, v96)
				}
			}

			e128, err := f.Encrypted128()
			if err != nil {
				t.Fatal(err)
			}
			d128, _ := f.Decrypt128(e128)
			v128, err := f.Counter128()
			if sortable {
				v128, err = f.Sortable128()
			}
			if err != nil {
				t.Fatal(err)
			}
			ts, m, _, n := split128(d128)
			wts, wm, _, wn := split128(v128)
			if ts != wts || m != wm || n+1 != wn {
				t.Errorf("base %s: Encrypted128 decrypts to ts %d machine %d count %d, not the value before ts %d machine %d count %d", base, ts, m, n, wts, wm, wn)
			}
		}
	}
}

// sameFieldsBut reports whether (ts, m, n) is the 96-bit value v with its
// count lowered by d.
func sameFieldsBut(ts, m, n uint64, v [12]byte, d uint64) bool {
	wts, wm, wn := split96(v)
	return ts == wts && m == wm && n+d == wn
}
