package nonce

import (
	"testing"
)

// Every cipher of every size, keyed from a fixed base key.
func fuzzFactories(t testing.TB) map[string]*Factory {
	out := map[string]*Factory{}
	for _, c := range []struct {
		name           string
		c64, c96, c128 Cipher
	}{
		{"blowfish+aes", Blowfish, Blowfish, AES},
		{"speck", Speck, Speck, Speck},
		{"des3", DES3, DES3, AES},
	} {
		out[c.name] = mustNew(t, Config{Fixed: true, BaseKey: testBaseKey, Cipher64: c.c64, Cipher96: c.c96, Cipher128: c.c128})
	}
	return out
}

func FuzzRoundTrip64(f *testing.F) {
	for _, v := range []uint64{0, 1, 1 << 63, ^uint64(0), 0x0383286c6f400001} {
		f.Add(v)
	}
	fs := fuzzFactories(f)
	f.Fuzz(func(t *testing.T, v uint64) {
		for name, fac := range fs {
			e, err := fac.Encrypt64(v)
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := fac.Decrypt64(e); d != v {
				t.Fatalf("%s: Decrypt64(Encrypt64(%x)) = %x", name, v, d)
			}
			if d, _ := fac.Decrypt64(v); d == v && e == v {
				t.Fatalf("%s: %x is a fixed point of both directions", name, v)
			}
		}
	})
}

func FuzzRoundTrip96(f *testing.F) {
	f.Add([]byte{}, uint32(0))
	f.Add([]byte("0123456789ab"), uint32(7))
	fs := fuzzFactories(f)
	f.Fuzz(func(t *testing.T, head []byte, tail uint32) {
		var v [12]byte
		copy(v[:], head)
		if len(head) < 12 {
			v[8], v[9], v[10], v[11] = byte(tail>>24), byte(tail>>16), byte(tail>>8), byte(tail)
		}
		for name, fac := range fs {
			e, err := fac.Encrypt96(v)
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := fac.Decrypt96(e); d != v {
				t.Fatalf("%s: Decrypt96(Encrypt96(%x)) = %x", name, v, d)
			}
			if name != "speck" && [4]byte(e[8:]) != [4]byte(v[8:]) {
				t.Fatalf("%s: tail changed: %x -> %x", name, v, e)
			}
		}
	})
}

func FuzzRoundTrip128(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("0123456789abcdef"))
	fs := fuzzFactories(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		var v [16]byte
		copy(v[:], in)
		for name, fac := range fs {
			e, err := fac.Encrypt128(v)
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := fac.Decrypt128(e); d != v {
				t.Fatalf("%s: Decrypt128(Encrypt128(%x)) = %x", name, v, d)
			}
		}
	})
}
