package nonce

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

type conformance struct {
	Keys []struct {
		BaseKeyHex string              `json:"base_key_hex"`
		Derived    map[string]string   `json:"derived"`
		Block64    []map[string]string `json:"block64"`
		Block96    []map[string]string `json:"block96"`
		Block128   []map[string]string `json:"block128"`
	} `json:"keys"`
	SpeckPaper []struct {
		Cipher     string `json:"cipher"`
		Key        string `json:"key"`
		Plain      string `json:"plain"`
		CipherText string `json:"cipher_text"`
	} `json:"speck_paper"`
}

func loadConformance(t *testing.T) conformance {
	t.Helper()
	raw, err := os.ReadFile("../testdata/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var c conformance
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Keys) == 0 || len(c.SpeckPaper) == 0 {
		t.Fatal("conformance.json has no key or Speck vectors")
	}
	return c
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestConformanceDerivedKeys(t *testing.T) {
	c := loadConformance(t)
	labels := []string{"blowfish_64", "speck64_128", "des3_64", "blowfish_96", "speck96_144", "des3_96", "aes", "speck128_256"}
	for _, set := range c.Keys {
		base := unhex(t, set.BaseKeyHex)
		for _, label := range labels {
			want, ok := set.Derived[label]
			if !ok {
				t.Fatalf("vectors lack label %s", label)
			}
			got, err := DeriveKey(base, label, len(want)/2)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != want {
				t.Errorf("DeriveKey(%s..., %s) = %x, want %s", set.BaseKeyHex[:8], label, got, want)
			}
		}
		// The key table must agree with the vectors' key lengths.
		for _, size := range []int{64, 96, 128} {
			for _, ci := range []Cipher{Blowfish, Speck, DES3, AES} {
				sp, err := specFor(size, ci)
				if err != nil {
					continue
				}
				if got := len(set.Derived[sp.label]) / 2; got != sp.keyLen {
					t.Errorf("%d-bit %s: key table says %d bytes, vectors %d", size, ci, sp.keyLen, got)
				}
			}
		}
	}
}

// factoriesFor returns, for one cipher, a factory keyed through the base
// key (KDF path) and one keyed through exact overrides (override path).
func factoriesFor(t *testing.T, base []byte, derived map[string]string, c64, c96, c128 Cipher) []*Factory {
	t.Helper()
	key := func(size int, c Cipher) []byte {
		sp, err := specFor(size, c)
		if err != nil {
			t.Fatal(err)
		}
		return unhex(t, derived[sp.label])
	}
	viaKDF := mustNew(t, Config{Fixed: true, BaseKey: base, Cipher64: c64, Cipher96: c96, Cipher128: c128})
	viaOverride := mustNew(t, Config{
		Fixed:    true,
		Cipher64: c64, Cipher96: c96, Cipher128: c128,
		Key64: key(64, c64), Key96: key(96, c96), Key128: key(128, c128),
	})
	return []*Factory{viaKDF, viaOverride}
}

func TestConformanceBlocks(t *testing.T) {
	c := loadConformance(t)
	for _, set := range c.Keys {
		base := unhex(t, set.BaseKeyHex)
		for _, tc := range []struct {
			name           string
			c64, c96, c128 Cipher
			col128         string
		}{
			{"blowfish", Blowfish, Blowfish, AES, "aes"},
			{"speck", Speck, Speck, Speck, "speck"},
			{"des3", DES3, DES3, CipherDefault, "aes"},
		} {
			for i, f := range factoriesFor(t, base, set.Derived, tc.c64, tc.c96, tc.c128) {
				path := []string{"kdf", "override"}[i]
				n := 0
				for _, v := range set.Block64 {
					plain := binaryU64(unhex(t, v["plain"]))
					want := binaryU64(unhex(t, v[tc.name]))
					if got, _ := f.Encrypt64(plain); got != want {
						t.Errorf("%s/%s Encrypt64(%016x) = %016x, want %016x", tc.name, path, plain, got, want)
					}
					if got, _ := f.Decrypt64(want); got != plain {
						t.Errorf("%s/%s Decrypt64(%016x) = %016x, want %016x", tc.name, path, want, got, plain)
					}
					n++
				}
				for _, v := range set.Block96 {
					plain, want := [12]byte(unhex(t, v["plain"])), [12]byte(unhex(t, v[tc.name]))
					if got, _ := f.Encrypt96(plain); got != want {
						t.Errorf("%s/%s Encrypt96(%x) = %x, want %x", tc.name, path, plain, got, want)
					}
					if got, _ := f.Decrypt96(want); got != plain {
						t.Errorf("%s/%s Decrypt96(%x) = %x, want %x", tc.name, path, want, got, plain)
					}
					n++
				}
				for _, v := range set.Block128 {
					plain, want := [16]byte(unhex(t, v["plain"])), [16]byte(unhex(t, v[tc.col128]))
					if got, _ := f.Encrypt128(plain); got != want {
						t.Errorf("%s/%s Encrypt128(%x) = %x, want %x", tc.col128, path, plain, got, want)
					}
					if got, _ := f.Decrypt128(want); got != plain {
						t.Errorf("%s/%s Decrypt128(%x) = %x, want %x", tc.col128, path, want, got, plain)
					}
					n++
				}
				if n < 30 {
					t.Fatalf("only %d vectors checked", n)
				}
			}
		}
	}
}

// TestConformanceBlock64Standalone checks the exported 64-bit constructors
// used by masking: NewBlock64 with the derived key, Block64FromBaseKey with
// the base key, and the factory's Cipher64.
func TestConformanceBlock64Standalone(t *testing.T) {
	c := loadConformance(t)
	for _, set := range c.Keys {
		base := unhex(t, set.BaseKeyHex)
		for _, ci := range []Cipher{CipherDefault, Blowfish, Speck, DES3} {
			sp, _ := specFor(64, ci)
			col := sp.cipher.String()
			direct, err := NewBlock64(ci, unhex(t, set.Derived[sp.label]))
			if err != nil {
				t.Fatal(err)
			}
			derived, err := Block64FromBaseKey(ci, base)
			if err != nil {
				t.Fatal(err)
			}
			fromFactory := mustNew(t, Config{Fixed: true, BaseKey: base, Cipher64: ci}).Cipher64()
			for _, b := range []Block64{direct, derived, fromFactory} {
				for _, v := range set.Block64 {
					plain, want := binaryU64(unhex(t, v["plain"])), binaryU64(unhex(t, v[col]))
					if got := b.Encrypt(plain); got != want {
						t.Errorf("%s: Encrypt(%016x) = %016x, want %016x", ci, plain, got, want)
					}
					if got := b.Decrypt(want); got != plain {
						t.Errorf("%s: Decrypt(%016x) = %016x, want %016x", ci, want, got, plain)
					}
				}
			}
		}
	}
}

func TestSpeckPaperVectors(t *testing.T) {
	c := loadConformance(t)
	seen := map[string]bool{}
	for _, v := range c.SpeckPaper {
		key, plain, want := unhex(t, v.Key), unhex(t, v.Plain), unhex(t, v.CipherText)
		var got, back []byte
		switch v.Cipher {
		case "speck64_128":
			s := newSpeck64(key)
			e := s.Encrypt(binaryU64(plain))
			got, back = be64(e), be64(s.Decrypt(e))
		case "speck96_144":
			s := newSpeck96(key)
			e := s.encrypt96([12]byte(plain))
			d := s.decrypt96(e)
			got, back = e[:], d[:]
		case "speck128_128", "speck128_256":
			s := newSpeck128(key)
			e := s.encrypt128([16]byte(plain))
			d := s.decrypt128(e)
			got, back = e[:], d[:]
		default:
			t.Fatalf("unknown Speck variant %q", v.Cipher)
		}
		seen[v.Cipher] = true
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encrypt = %x, want %x", v.Cipher, got, want)
		}
		if !bytes.Equal(back, plain) {
			t.Errorf("%s: decrypt = %x, want %x", v.Cipher, back, plain)
		}
	}
	if len(seen) != 4 {
		t.Errorf("checked variants %v, want all four", seen)
	}
}

func binaryU64(b []byte) uint64 {
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v
}

func be64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (56 - 8*i))
	}
	return b
}
