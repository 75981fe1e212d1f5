package once_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// pathBinding is the factory of BenchmarkNewAsPath's ID type.
var pathBinding once.Binding

type pathSpec struct{}

func (pathSpec) Options() once.Options { return once.Options{Prefix: "usr_", Generator: &pathBinding} }

type pathID = once.Typed[pathSpec]

// savedUpFactory returns a Fixed factory made an hour ago by its clock: it
// has an hour of saved-up counter milliseconds (29.5 billion nonces), so a
// tight loop measures the per-call cost and never the sustained cap of
// 8,192 per millisecond, as a long-running server sees it.
func savedUpFactory(b *testing.B) *nonce.Factory {
	var behind atomic.Int64
	behind.Store(int64(time.Hour))
	f, err := nonce.New(nonce.Config{Fixed: true, Now: func() time.Time { return time.Now().Add(-time.Duration(behind.Load())) }})
	if err != nil {
		b.Fatal(err)
	}
	behind.Store(0)
	return f
}

// BenchmarkNewAsPath measures a typed counter ID in one run: NewAs (the
// codec, then a call to the factory's Counter64), NewAs through the codec's
// newValue (a second call), Counter64 alone, and one atomic add (the
// floor). Compare them as ratios of one run:
// go test -run '^$' -bench NewAsPath -count 10 (chunks: the fastest-chunk
// ratios, which hold on a loaded machine).
func BenchmarkNewAsPath(b *testing.B) {
	pathBinding.Set(savedUpFactory(b))
	defer pathBinding.Set(nil)
	b.Run("NewAs", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		for b.Loop() {
			m.tick()
			if _, err := once.NewAs[pathID](); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("newValue", func(b *testing.B) {
		m := meter(b)
		defer m.done()
		for b.Loop() {
			m.tick()
			if _, err := once.NewAsThroughNewValue[pathID](); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Counter64", func(b *testing.B) {
		f := pathBinding.Factory()
		m := meter(b)
		defer m.done()
		for b.Loop() {
			m.tick()
			if _, err := f.Counter64(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("chunks", func(b *testing.B) { chunkMins(b) })
	b.Run("add", func(b *testing.B) {
		var w atomic.Uint64
		m := meter(b)
		defer m.done()
		for b.Loop() {
			m.tick()
			w.Add(1)
		}
	})
}

// chunkMins runs NewAs, NewAs through newValue and Counter64 in
// alternating chunks of 4,096 calls and reports, for each, the fastest
// chunk's ns per call (the chunks that nothing else on the machine
// interrupted) and its ratio to NewAs: a measure that holds on a loaded
// machine, where the means of whole runs do not.
func chunkMins(b *testing.B) {
	const chunk = 4096
	f := pathBinding.Factory()
	paths := []struct {
		name string
		run  func()
	}{
		{"NewAs", func() {
			for range chunk {
				if _, err := once.NewAs[pathID](); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"newValue", func() {
			for range chunk {
				if _, err := once.NewAsThroughNewValue[pathID](); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"Counter64", func() {
			for range chunk {
				if _, err := f.Counter64(); err != nil {
					b.Fatal(err)
				}
			}
		}},
	}
	mins := make([]time.Duration, len(paths))
	for i := range mins {
		mins[i] = time.Hour
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, p := range paths {
			start := time.Now()
			p.run()
			mins[i] = min(mins[i], time.Since(start))
		}
	}
	ns := func(i int) float64 { return float64(mins[i].Nanoseconds()) / chunk }
	for i, p := range paths {
		b.ReportMetric(ns(i), p.name+"-min-ns")
	}
	b.ReportMetric(ns(1)/ns(0), "newValue/NewAs")
	b.ReportMetric(ns(2)/ns(0), "Counter64/NewAs")
}
