package bench

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// Our ID types. Every generating kind has its own factory (one factory and
// one nonce kind per ID space); the prefixed type uses the same prefix length
// as the typeid peer ("user" + "_").

var benchBaseKey = []byte("once-bench-base-key-not-a-secret") // public: the benchmark needs cost, not secrecy

func mustFactory(cfg nonce.Config) *nonce.Factory {
	cfg.MachineID, cfg.BaseKey = 1, benchBaseKey
	f, err := nonce.New(cfg)
	if err != nil {
		panic(err)
	}
	return f
}

// idleFactory returns a factory that started an hour ago: its clock reads one
// hour behind while it is built and real time afterwards. A counter factory
// may run 8,192 nonces per millisecond ahead of the time it has been idle
// ("saved-up" milliseconds) and is capped at 8,192/ms sustained once that
// budget is spent. A long-running server that averages below the cap always
// has budget, so the per-call cost it sees is the one measured here; a
// factory created a moment before a tight loop measures the cap instead
// (see once-counter-sustained). One hour is 29.5 billion nonces, far more
// than any run here draws.
func idleFactory(cfg nonce.Config) *nonce.Factory {
	var behind atomic.Int64
	behind.Store(int64(time.Hour))
	cfg.Now = func() time.Time { return time.Now().Add(-time.Duration(behind.Load())) }
	f := mustFactory(cfg)
	behind.Store(0)
	return f
}

// leasedFactory returns a factory under a lease, as lease.Start leaves it:
// activated with a deadline (far ahead here), which the counter checks on
// every call with one reading of the monotonic clock. It runs on the
// default clock, so it cannot start in the past as idleFactory does: the
// caller waits before its loop (see once-counter-leased), and each second
// waited saves up 8.2 M IDs.
func leasedFactory() *nonce.Factory {
	f, err := nonce.New(nonce.Config{BaseKey: benchBaseKey})
	if err == nil {
		err = f.Activate(1, time.Time{}, time.Now().Add(1000*time.Hour))
	}
	if err != nil {
		panic(err)
	}
	return f
}

var (
	leasedGen    = new(once.Binding)
	counterGen   = once.Bind(idleFactory(nonce.Config{Fixed: true}))
	sortableGen  = once.Bind(mustFactory(nonce.Config{Fixed: true}))
	encryptedGen = once.Bind(idleFactory(nonce.Config{Fixed: true})) // Blowfish, the default 64-bit cipher, over counter nonces
	speckGen     = once.Bind(mustFactory(nonce.Config{Fixed: true, Cipher64: nonce.Speck}))
	blowfishGen  = once.Bind(mustFactory(nonce.Config{Fixed: true, Cipher64: nonce.Blowfish}))
)

// sustainedGen and sustainedEncGen are rebound to a fresh factory at the
// start of each once-counter-sustained and once-encrypted-sustained
// benchmark: a fresh factory has no saved-up milliseconds, so from its first
// call a tight loop runs at the 8,192/ms sustained cap, and a loop of more
// than a few thousand iterations (any -benchtime of a millisecond or more)
// measures the cap, not a burst.
var (
	sustainedGen    = new(once.Binding)
	sustainedEncGen = new(once.Binding)
)

type (
	leasedSpec         struct{}
	counterSpec        struct{}
	sustainedSpec      struct{}
	sustainedEncSpec   struct{}
	sortableSpec       struct{}
	encryptedSpec      struct{}
	prefixedSpec       struct{}
	maskedSpec         struct{}
	maskedBlowfishSpec struct{}
)

func (leasedSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Counter, Generator: leasedGen}
}
func (counterSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Counter, Generator: counterGen}
}
func (sustainedSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Counter, Generator: sustainedGen}
}
func (sustainedEncSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Encrypted, Generator: sustainedEncGen}
}
func (sortableSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Sortable, Generator: sortableGen}
}
func (encryptedSpec) Options() once.Options {
	return once.Options{Nonce: nonce.Encrypted, Generator: encryptedGen}
}
func (prefixedSpec) Options() once.Options { return once.Options{Prefix: "user_"} }
func (maskedSpec) Options() once.Options   { return once.Options{Mask: true, Generator: speckGen} }
func (maskedBlowfishSpec) Options() once.Options {
	return once.Options{Mask: true, Generator: blowfishGen}
}

type (
	leasedID         = once.Typed[leasedSpec]
	counterID        = once.Typed[counterSpec]
	sustainedID      = once.Typed[sustainedSpec]
	sustainedEncID   = once.Typed[sustainedEncSpec]
	sortableID       = once.Typed[sortableSpec]
	encryptedID      = once.Typed[encryptedSpec]
	prefixedID       = once.Typed[prefixedSpec]
	maskedID         = once.Typed[maskedSpec]
	maskedBlowfishID = once.Typed[maskedBlowfishSpec]
)

// nonceCeiling is the sustained cap of 64-bit counter and sortable nonces:
// 8,192 per millisecond per factory (machine ID), ~122 ns per nonce. Sortable
// nonces never exceed it; counter nonces exceed it only from saved-up budget.
const nonceCeiling = 8192 * 1000

var (
	sinkID        once.ID
	sinkCounter   counterID
	sinkLeased    leasedID
	sinkSustained sustainedID
	sinkSustEnc   sustainedEncID
	sinkSortable  sortableID
	sinkEnc       encryptedID
	sinkPrefixed  prefixedID
	sinkMasked    maskedID
	sinkMaskedBF  maskedBlowfishID
)

func onceGenerate() []impl {
	return []impl{
		{"once-counter", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkCounter, sinkErr = once.NewAs[counterID]()
			}
		}},
		{"once-counter-leased", func(b *testing.B) {
			// 2s saved up: 16.4 M IDs, more than a loop of -benchtime
			// 200ms draws at the ~40 ns a call takes.
			leasedGen.Set(leasedFactory())
			time.Sleep(2 * time.Second)
			b.ReportAllocs()
			for b.Loop() {
				sinkLeased, sinkErr = once.NewAs[leasedID]()
			}
		}},
		{"once-sortable", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkSortable, sinkErr = once.NewAs[sortableID]()
			}
			reportCeiling(b, nonceCeiling)
		}},
		{"once-encrypted", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkEnc, sinkErr = once.NewAs[encryptedID]()
			}
		}},
		{"once-counter-sustained", func(b *testing.B) {
			sustainedGen.Set(mustFactory(nonce.Config{Fixed: true}))
			b.ReportAllocs()
			for b.Loop() {
				sinkSustained, sinkErr = once.NewAs[sustainedID]()
			}
			reportCeiling(b, nonceCeiling)
		}},
		{"once-encrypted-sustained", func(b *testing.B) {
			sustainedEncGen.Set(mustFactory(nonce.Config{Fixed: true}))
			b.ReportAllocs()
			for b.Loop() {
				sinkSustEnc, sinkErr = once.NewAs[sustainedEncID]()
			}
			reportCeiling(b, nonceCeiling)
		}},
	}
}

func onceGenerateParallel() []impl {
	return []impl{
		{"once-counter", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last counterID
				var err error
				for pb.Next() {
					last, err = once.NewAs[counterID]()
				}
				sinkMu.Lock()
				sinkCounter, sinkErr = last, err
				sinkMu.Unlock()
			})
		}},
		{"once-sortable", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last sortableID
				var err error
				for pb.Next() {
					last, err = once.NewAs[sortableID]()
				}
				sinkMu.Lock()
				sinkSortable, sinkErr = last, err
				sinkMu.Unlock()
			})
			reportCeiling(b, nonceCeiling)
		}},
		{"once-encrypted", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last encryptedID
				var err error
				for pb.Next() {
					last, err = once.NewAs[encryptedID]()
				}
				sinkMu.Lock()
				sinkEnc, sinkErr = last, err
				sinkMu.Unlock()
			})
		}},
		{"once-counter-sustained", func(b *testing.B) {
			sustainedGen.Set(mustFactory(nonce.Config{Fixed: true}))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last sustainedID
				var err error
				for pb.Next() {
					last, err = once.NewAs[sustainedID]()
				}
				sinkMu.Lock()
				sinkSustained, sinkErr = last, err
				sinkMu.Unlock()
			})
			reportCeiling(b, nonceCeiling)
		}},
		{"once-encrypted-sustained", func(b *testing.B) {
			sustainedEncGen.Set(mustFactory(nonce.Config{Fixed: true}))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last sustainedEncID
				var err error
				for pb.Next() {
					last, err = once.NewAs[sustainedEncID]()
				}
				sinkMu.Lock()
				sinkSustEnc, sinkErr = last, err
				sinkMu.Unlock()
			})
			reportCeiling(b, nonceCeiling)
		}},
	}
}

// Pre-generated values of ours: counter nonces as an application would store
// them, and their spellings under each type's options.
type onceInputs struct {
	ids          [n]once.ID
	text         [n]string // url64
	prefixedText [n]string // "user_" + url64
	maskedText   [n]string // url64 of Speck(stored)
	maskedBFText [n]string // url64 of Blowfish(stored)
}

var ours = sync.OnceValue(func() *onceInputs {
	f := mustFactory(nonce.Config{Fixed: true})
	in := new(onceInputs)
	for i := range n {
		v, err := f.Counter64()
		if err != nil {
			panic(err)
		}
		id := once.FromUint64(v)
		in.ids[i] = id
		in.text[i] = id.String()
		in.prefixedText[i] = prefixedID(id).String()
		in.maskedText[i] = maskedID(id).String()
		in.maskedBFText[i] = maskedBlowfishID(id).String()
	}
	return in
})

func onceParse() []impl {
	return []impl{
		{"once", func(b *testing.B) {
			in := &ours().text
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkID, sinkErr = once.Parse(in[i&mask])
			}
		}},
		{"once-prefixed", func(b *testing.B) {
			in := &ours().prefixedText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkPrefixed, sinkErr = once.ParseAs[prefixedID](in[i&mask])
			}
		}},
		{"once-masked", func(b *testing.B) {
			in := &ours().maskedText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkMasked, sinkErr = once.ParseAs[maskedID](in[i&mask])
			}
		}},
		{"once-masked-blowfish", func(b *testing.B) {
			in := &ours().maskedBFText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkMaskedBF, sinkErr = once.ParseAs[maskedBlowfishID](in[i&mask])
			}
		}},
	}
}

func onceFormat() []impl {
	return []impl{
		{"once", func(b *testing.B) {
			in := &ours().ids
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf, sinkErr = in[i&mask].AppendText(buf[:0])
			}
			sinkBytes = buf
		}},
		{"once-prefixed", func(b *testing.B) {
			in := &ours().ids
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf, sinkErr = prefixedID(in[i&mask]).AppendText(buf[:0])
			}
			sinkBytes = buf
		}},
		{"once-masked", func(b *testing.B) {
			in := &ours().ids
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf, sinkErr = maskedID(in[i&mask]).AppendText(buf[:0])
			}
			sinkBytes = buf
		}},
		{"once-masked-blowfish", func(b *testing.B) {
			in := &ours().ids
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf, sinkErr = maskedBlowfishID(in[i&mask]).AppendText(buf[:0])
			}
			sinkBytes = buf
		}},
	}
}
