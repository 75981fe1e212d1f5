package once_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// conformance mirrors ../testdata/conformance.json (the parts once uses).
type conformance struct {
	Formats []struct {
		Unsigned, Signed, URL64, Hex, Hex32 string
	} `json:"formats"`
	Prefixed []struct {
		Prefix, Unsigned, URL64, Hex, Hex32, Signed string
	} `json:"prefixed"`
	Keys []struct {
		BaseKeyHex string `json:"base_key_hex"`
		Block64    []struct {
			Plain, Blowfish, DES3, Speck string
			BlowfishURL64                string `json:"blowfish_url64"`
		} `json:"block64"`
	} `json:"keys"`
	InvalidText []struct {
		Prefix, Format string
		Inputs         []string
	} `json:"invalid_text"`
	NormalizeText []struct {
		Prefix, Format, Input, Canonical string
	} `json:"normalize_text"`
}

func loadConformance(t testing.TB) *conformance {
	t.Helper()
	data, err := os.ReadFile("../testdata/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var c conformance
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Formats) == 0 || len(c.Keys) == 0 || len(c.InvalidText) == 0 {
		t.Fatal("conformance.json: missing sections")
	}
	return &c
}

func mustUint(t testing.TB, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustHex64(t testing.TB, s string) uint64 {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 8 {
		t.Fatalf("bad hex %q", s)
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func mustFormat(t testing.TB, s string) once.Format {
	t.Helper()
	f, err := once.ParseFormat(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testBaseKey is a fixed 32-byte base key for tests and examples.
var testBaseKey = []byte("0123456789abcdef0123456789abcdef")

// keyFactory returns an enabled factory with the given base key and 64-bit
// cipher.
func keyFactory(t testing.TB, key []byte, c nonce.Cipher) *nonce.Factory {
	t.Helper()
	f, err := nonce.New(nonce.Config{Fixed: true, BaseKey: key, Cipher64: c})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// maskBinding is the generator the masked test kinds are bound to; tests
// set it (they do not run in parallel with each other while doing so).
var maskBinding once.Binding

type (
	userSpec   struct{}
	orgSpec    struct{}
	maskedSpec struct{} // url64, masked, bound to maskBinding
	maskedHex  struct{} // hex, masked, bound to maskBinding
	signedSpec struct{} // signed, unprefixed: JSON numbers allowed
	unsignedDB struct{} // unsigned in the database
)

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_"} }
func (orgSpec) Options() once.Options  { return once.Options{Prefix: "org_", Format: once.Hex32} }
func (maskedSpec) Options() once.Options {
	return once.Options{Mask: true, Generator: &maskBinding}
}
func (maskedHex) Options() once.Options {
	return once.Options{Format: once.Hex, Mask: true, Generator: &maskBinding}
}
func (signedSpec) Options() once.Options { return once.Options{Format: once.Signed} }
func (unsignedDB) Options() once.Options { return once.Options{DBFormat: once.Unsigned} }

type (
	UserID   = once.Typed[userSpec]
	OrgID    = once.Typed[orgSpec]
	MaskedID = once.Typed[maskedSpec]
)
