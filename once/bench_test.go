package once_test

import (
	"database/sql/driver"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/once-go/once/internal/cputime"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// Bindings and kinds for the masked benchmarks: prefixed, masked url64.
var blowfishBinding, speckBinding, des3Binding once.Binding

type (
	blowfishSpec struct{}
	speckSpec    struct{}
	des3Spec     struct{}
	BlowfishID   = once.Typed[blowfishSpec]
	SpeckID      = once.Typed[speckSpec]
	DES3ID       = once.Typed[des3Spec]
)

func (blowfishSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &blowfishBinding}
}
func (speckSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &speckBinding}
}
func (des3Spec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &des3Binding}
}

func setupBenchBindings(b *testing.B) {
	if blowfishBinding.Factory() == nil {
		blowfishBinding.Set(keyFactory(b, testBaseKey, nonce.Blowfish))
		speckBinding.Set(keyFactory(b, testBaseKey, nonce.Speck))
		des3Binding.Set(keyFactory(b, testBaseKey, nonce.DES3))
	}
}

const benchN = 1024 // distinct inputs per benchmark, cycled

// benchIDs returns benchN random IDs of type T and their text and JSON.
func benchIDs[T once.IDType](b *testing.B) (ids []T, texts []string, jsons [][]byte) {
	setupBenchBindings(b)
	r := rand.New(rand.NewPCG(1, 2))
	opts := (*new(T)).Options()
	for range benchN {
		id := once.FromUint64(r.Uint64())
		txt, err := opts.AppendText(nil, id)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, T(id))
		texts = append(texts, string(txt))
		jsons = append(jsons, []byte(`"`+string(txt)+`"`))
	}
	return ids, texts, jsons
}

func BenchmarkParse(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		_, in, _ := benchIDs[once.ID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			if _, err := once.Parse(in[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("prefixed", func(b *testing.B) { benchParse[UserID](b) })
	b.Run("masked-blowfish", func(b *testing.B) { benchParse[BlowfishID](b) })
	b.Run("masked-speck", func(b *testing.B) { benchParse[SpeckID](b) })
	b.Run("masked-des3", func(b *testing.B) { benchParse[DES3ID](b) })
	b.Run("prefixed-parallel", func(b *testing.B) {
		_, in, _ := benchIDs[UserID](b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				if _, err := once.ParseAs[UserID](in[i%benchN]); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
}

// benchParse measures ParseAs[T]: a direct generic call, as applications
// make it.
func benchParse[T once.IDType](b *testing.B) {
	_, in, _ := benchIDs[T](b)
	m := meter(b)
	defer m.done()
	i := 0
	for b.Loop() {
		m.tick()
		if _, err := once.ParseAs[T](in[i%benchN]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// The formatting benchmarks call the concrete methods (no interface or
// dictionary in the measured path).
func BenchmarkAppendText(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.Run("plain", func(b *testing.B) {
		ids, _, _ := benchIDs[once.ID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			buf, _ = ids[i%benchN].AppendText(buf[:0])
			i++
		}
	})
	b.Run("prefixed", func(b *testing.B) {
		ids, _, _ := benchIDs[UserID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			buf, _ = ids[i%benchN].AppendText(buf[:0])
			i++
		}
	})
	b.Run("masked-blowfish", func(b *testing.B) {
		ids, _, _ := benchIDs[BlowfishID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			buf, _ = ids[i%benchN].AppendText(buf[:0])
			i++
		}
	})
	b.Run("masked-speck", func(b *testing.B) {
		ids, _, _ := benchIDs[SpeckID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			buf, _ = ids[i%benchN].AppendText(buf[:0])
			i++
		}
	})
	b.Run("masked-des3", func(b *testing.B) {
		ids, _, _ := benchIDs[DES3ID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			buf, _ = ids[i%benchN].AppendText(buf[:0])
			i++
		}
	})
}

var sinkString string

func BenchmarkString(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		ids, _, _ := benchIDs[once.ID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkString = ids[i%benchN].String()
			i++
		}
	})
	b.Run("prefixed", func(b *testing.B) {
		ids, _, _ := benchIDs[UserID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkString = ids[i%benchN].String()
			i++
		}
	})
	b.Run("masked-speck", func(b *testing.B) {
		ids, _, _ := benchIDs[SpeckID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkString = ids[i%benchN].String()
			i++
		}
	})
}

var sinkBytes []byte

func BenchmarkJSON(b *testing.B) {
	b.Run("marshal-plain", func(b *testing.B) {
		ids, _, _ := benchIDs[once.ID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkBytes, _ = ids[i%benchN].MarshalJSON()
			i++
		}
	})
	b.Run("marshal-prefixed", func(b *testing.B) {
		ids, _, _ := benchIDs[UserID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkBytes, _ = ids[i%benchN].MarshalJSON()
			i++
		}
	})
	b.Run("marshal-masked-speck", func(b *testing.B) {
		ids, _, _ := benchIDs[SpeckID](b)
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkBytes, _ = ids[i%benchN].MarshalJSON()
			i++
		}
	})
	b.Run("unmarshal-plain", func(b *testing.B) {
		_, _, in := benchIDs[once.ID](b)
		m := meter(b)
		defer m.done()
		var id once.ID
		i := 0
		for b.Loop() {
			m.tick()
			if err := id.UnmarshalJSON(in[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("unmarshal-prefixed", func(b *testing.B) {
		_, _, in := benchIDs[UserID](b)
		m := meter(b)
		defer m.done()
		var id UserID
		i := 0
		for b.Loop() {
			m.tick()
			if err := id.UnmarshalJSON(in[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("unmarshal-masked-speck", func(b *testing.B) {
		_, _, in := benchIDs[SpeckID](b)
		m := meter(b)
		defer m.done()
		var id SpeckID
		i := 0
		for b.Loop() {
			m.tick()
			if err := id.UnmarshalJSON(in[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

type hexDBSpec struct{}

func (hexDBSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", DBFormat: once.Hex, PersistPrefix: true}
}

var sinkValue driver.Value

func BenchmarkSQL(b *testing.B) {
	ids, _, _ := benchIDs[once.ID](b)
	ints := make([]any, benchN)
	texts := make([]any, benchN)
	for i, id := range ids {
		ints[i] = id.Int64()
		texts[i], _ = once.Typed[hexDBSpec](id).Value()
		texts[i] = []byte(texts[i].(string))
	}
	b.Run("scan-int64-plain", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		var id once.ID
		i := 0
		for b.Loop() {
			m.tick()
			if err := id.Scan(ints[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("scan-int64-typed", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		var id UserID
		i := 0
		for b.Loop() {
			m.tick()
			if err := id.Scan(ints[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("scan-bytes-hex-persisted", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		var id once.Typed[hexDBSpec]
		i := 0
		for b.Loop() {
			m.tick()
			if err := id.Scan(texts[i%benchN]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("value-plain", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkValue, _ = ids[i%benchN].Value()
			i++
		}
	})
	b.Run("value-typed", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkValue, _ = UserID(ids[i%benchN]).Value()
			i++
		}
	})
	b.Run("value-hex-persisted", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		i := 0
		for b.Loop() {
			m.tick()
			sinkValue, _ = once.Typed[hexDBSpec](ids[i%benchN]).Value()
			i++
		}
	})
}

func BenchmarkNew(b *testing.B) {
	f, err := nonce.New(nonce.Config{Fixed: true})
	if err != nil {
		b.Fatal(err)
	}
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	m := meter(b)
	defer m.done()
	for b.Loop() {
		m.tick()
		if _, err := once.NewAs[UserID](); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCipher64 is the floor under the masked benchmarks: one block
// encryption through nonce.Block64, without parsing or formatting.
func BenchmarkCipher64(b *testing.B) {
	for _, c := range []nonce.Cipher{nonce.Blowfish, nonce.Speck, nonce.DES3} {
		b.Run(c.String(), func(b *testing.B) {
			blk := keyFactory(b, testBaseKey, c).Cipher64()
			m := meter(b)
			defer m.done()
			v := uint64(1)
			for b.Loop() {
				m.tick()
				v = blk.Encrypt(v)
			}
		})
	}
}

// cpuMeter reports cpu-ns/op next to ns/op: the CPU time of the benchmark's
// thread per call, which unlike wall time does not grow when other
// processes compete for a shared machine's CPUs.
type cpuMeter struct {
	b     *testing.B
	start int64
	n     int
}

func meter(b *testing.B) *cpuMeter {
	b.ReportAllocs()
	runtime.LockOSThread()
	return &cpuMeter{b: b, start: -1}
}

func (m *cpuMeter) tick() {
	if m.n == 0 {
		m.start = cputime.Thread()
	}
	m.n++
}

func (m *cpuMeter) done() {
	end := cputime.Thread()
	runtime.UnlockOSThread()
	if m.start >= 0 && end >= 0 && m.n > 1 {
		m.b.ReportMetric(float64(end-m.start)/float64(m.n-1), "cpu-ns/op")
	}
}
