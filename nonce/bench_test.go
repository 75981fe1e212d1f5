package nonce

import (
	"runtime"
	"testing"
	"time"

	"github.com/once-go/once/internal/cputime"
)

// Benchmarks. The 64-bit counter and sortable kinds are bounded by the clock
// (8,192 values per ms per machine, sustained), far below what the code can
// do, so each is measured twice:
//   - "burst" / "below-ceiling": the factory runs on a clock 1,000 times
//     faster than real time, so the rate cap never binds and the figure is
//     the cost of one call (the counter's saved-up milliseconds in a burst,
//     a sortable factory running below 8,192/ms);
//   - "sustained" / "ceiling": the real clock; the figure is the ceiling,
//     about 122 ns/op (1 ms / 8,192), not the code's speed.
// Encrypted nonces run on a burst counter, so the figure is counter + cipher.
// Serial benchmarks also report cpu-ns/op, the CPU time of the benchmark's
// thread per call: unlike ns/op it does not grow when other processes
// compete for the CPU.

// fastClock runs 1,000 times faster than real time (monotonic readings).
func fastClock() func() time.Time {
	base := time.Now()
	return func() time.Time { return base.Add(time.Since(base) * 1000) }
}

func benchGen[T any](b *testing.B, gen func() (T, error)) {
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		start, n := int64(-1), 0
		for b.Loop() {
			if n == 0 {
				start = cputime.Thread()
			}
			if _, err := gen(); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if end := cputime.Thread(); start >= 0 && end >= 0 && n > 1 {
			b.ReportMetric(float64(end-start)/float64(n-1), "cpu-ns/op")
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := gen(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// factory returns a fresh factory with every cipher of the given names.
func benchFactory(b *testing.B, now func() time.Time, c64, c96, c128 Cipher) *Factory {
	return mustNew(b, Config{Fixed: true, MachineID: 1, BaseKey: testBaseKey, Now: now,
		Cipher64: c64, Cipher96: c96, Cipher128: c128})
}

func BenchmarkCounter64(b *testing.B) {
	b.Run("burst", func(b *testing.B) { benchGen(b, benchFactory(b, fastClock(), 0, 0, 0).Counter64) })
	b.Run("burst-leased", func(b *testing.B) { benchGen(b, leased(b, benchFactory(b, fastClock(), 0, 0, 0)).Counter64) })
	b.Run("sustained-ceiling", func(b *testing.B) { benchGen(b, benchFactory(b, nil, 0, 0, 0).Counter64) })
}

func BenchmarkCounter96(b *testing.B) {
	b.Run("fixed", func(b *testing.B) { benchGen(b, benchFactory(b, nil, 0, 0, 0).Counter96) })
	b.Run("leased", func(b *testing.B) { benchGen(b, leased(b, benchFactory(b, nil, 0, 0, 0)).Counter96) })
}

func BenchmarkCounter128(b *testing.B) {
	b.Run("fixed", func(b *testing.B) { benchGen(b, benchFactory(b, nil, 0, 0, 0).Counter128) })
	b.Run("leased", func(b *testing.B) { benchGen(b, leased(b, benchFactory(b, nil, 0, 0, 0)).Counter128) })
}

// leased activates f as a lease manager does, with a deadline far ahead:
// the counters' fast paths then read the clock once per call to check it.
func leased(b *testing.B, f *Factory) *Factory {
	if err := f.Activate(1, time.Time{}, f.wall().Add(1000*time.Hour)); err != nil {
		b.Fatal(err)
	}
	return f
}

func BenchmarkSortable64(b *testing.B) {
	b.Run("below-ceiling", func(b *testing.B) { benchGen(b, benchFactory(b, fastClock(), 0, 0, 0).Sortable64) })
	b.Run("ceiling", func(b *testing.B) { benchGen(b, benchFactory(b, nil, 0, 0, 0).Sortable64) })
}

func BenchmarkSortable96(b *testing.B)  { benchGen(b, benchFactory(b, nil, 0, 0, 0).Sortable96) }
func BenchmarkSortable128(b *testing.B) { benchGen(b, benchFactory(b, nil, 0, 0, 0).Sortable128) }

var benchCiphers = []struct {
	name           string
	c64, c96, c128 Cipher
}{
	{"blowfish+aes", Blowfish, Blowfish, AES},
	{"speck", Speck, Speck, Speck},
	{"des3", DES3, DES3, AES},
}

func BenchmarkEncrypted64(b *testing.B) {
	for _, c := range benchCiphers {
		b.Run(c.c64.String(), func(b *testing.B) {
			benchGen(b, benchFactory(b, fastClock(), c.c64, c.c96, c.c128).Encrypted64)
		})
	}
}

func BenchmarkEncrypted96(b *testing.B) {
	for _, c := range benchCiphers {
		b.Run(c.c96.String(), func(b *testing.B) {
			benchGen(b, benchFactory(b, fastClock(), c.c64, c.c96, c.c128).Encrypted96)
		})
	}
}

func BenchmarkEncrypted128(b *testing.B) {
	for _, c := range benchCiphers[:2] {
		b.Run(c.c128.String(), func(b *testing.B) {
			benchGen(b, benchFactory(b, fastClock(), c.c64, c.c96, c.c128).Encrypted128)
		})
	}
}

// BenchmarkCipher measures Encrypt/Decrypt alone.
func BenchmarkCipher(b *testing.B) {
	for _, c := range benchCiphers {
		f := benchFactory(b, nil, c.c64, c.c96, c.c128)
		var (
			v64  uint64
			v96  [12]byte
			v128 [16]byte
		)
		b.Run("64/"+c.c64.String()+"/encrypt", func(b *testing.B) {
			benchGen(b, func() (uint64, error) { return f.Encrypt64(v64) })
		})
		b.Run("64/"+c.c64.String()+"/decrypt", func(b *testing.B) {
			benchGen(b, func() (uint64, error) { return f.Decrypt64(v64) })
		})
		b.Run("96/"+c.c96.String()+"/encrypt", func(b *testing.B) {
			benchGen(b, func() ([12]byte, error) { return f.Encrypt96(v96) })
		})
		b.Run("96/"+c.c96.String()+"/decrypt", func(b *testing.B) {
			benchGen(b, func() ([12]byte, error) { return f.Decrypt96(v96) })
		})
		if c.c128 == AES && c.c64 == DES3 {
			continue // AES already measured with blowfish
		}
		b.Run("128/"+c.c128.String()+"/encrypt", func(b *testing.B) {
			benchGen(b, func() ([16]byte, error) { return f.Encrypt128(v128) })
		})
		b.Run("128/"+c.c128.String()+"/decrypt", func(b *testing.B) {
			benchGen(b, func() ([16]byte, error) { return f.Decrypt128(v128) })
		})
	}
}

// BenchmarkClockRead is context for the sortable figures: every sortable
// call reads the clock once, with the factory's default clock (monotonic
// time.Since) or, in the below-ceiling benchmark, the accelerated test clock.
func BenchmarkClockRead(b *testing.B) {
	f := mustNew(b, Config{Fixed: true})
	st := f.state.Load()
	b.Run("default", func(b *testing.B) {
		benchGen(b, func() (int64, error) { return f.elapsed(st), nil })
	})
	g := mustNew(b, Config{Fixed: true, Now: fastClock()})
	gst := g.state.Load()
	b.Run("accelerated", func(b *testing.B) {
		benchGen(b, func() (int64, error) { return g.elapsed(gst), nil })
	})
}
