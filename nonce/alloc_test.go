package nonce

import (
	"testing"
	"time"
)

func TestZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters change allocation behaviour")
	}
	for name, f := range fuzzFactories(t) {
		for _, g := range generators(f) {
			if n := testing.AllocsPerRun(1000, func() { _, _ = g.call() }); n != 0 {
				t.Errorf("%s %s: %v allocs per call", name, g.name, n)
			}
		}
		var (
			v64  uint64 = 0x0123456789abcdef
			v96         = [12]byte{1, 2, 3}
			v128        = [16]byte{4, 5, 6}
		)
		for op, fn := range map[string]func(){
			"Encrypt64":  func() { v64, _ = f.Encrypt64(v64) },
			"Decrypt64":  func() { v64, _ = f.Decrypt64(v64) },
			"Encrypt96":  func() { v96, _ = f.Encrypt96(v96) },
			"Decrypt96":  func() { v96, _ = f.Decrypt96(v96) },
			"Encrypt128": func() { v128, _ = f.Encrypt128(v128) },
			"Decrypt128": func() { v128, _ = f.Decrypt128(v128) },
			"Cipher64":   func() { v64 = f.Cipher64().Encrypt(v64) },
		} {
			if n := testing.AllocsPerRun(1000, fn); n != 0 {
				t.Errorf("%s %s: %v allocs per call", name, op, n)
			}
		}
	}
	// Under a lease (a deadline checked on every call) neither.
	leased := mustNew(t, Config{BaseKey: testBaseKey})
	if err := leased.Activate(3, timeZero, leased.wall().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, g := range generators(leased) {
		if n := testing.AllocsPerRun(1000, func() { _, _ = g.call() }); n != 0 {
			t.Errorf("leased %s: %v allocs per call", g.name, n)
		}
	}
	// Error paths of the generators do not allocate either.
	f := mustNew(t, Config{})
	for _, g := range generators(f) {
		if n := testing.AllocsPerRun(100, func() { _, _ = g.call() }); n != 0 {
			t.Errorf("disabled %s: %v allocs per call", g.name, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Split64(0x0383286c6f400001, timeZero) }); n != 0 {
		t.Errorf("Split64: %v allocs per call", n)
	}
}
