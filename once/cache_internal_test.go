package once

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

type benchCacheSpec struct{}

func (benchCacheSpec) Options() Options { return Options{Prefix: "usr_"} }

// cowCodecs is the plain alternative to the slot table in cache.go: a
// copy-on-write map keyed by reflect.Type, read with one atomic load.
var (
	cowCodecs  atomic.Pointer[map[reflect.Type]*codec]
	cowWriters sync.Mutex
)

func cowCodecFor[T IDType]() *codec {
	typ := reflect.TypeFor[T]()
	if m := cowCodecs.Load(); m != nil {
		if c, ok := (*m)[typ]; ok {
			return c
		}
	}
	cowWriters.Lock()
	defer cowWriters.Unlock()
	next := map[reflect.Type]*codec{}
	if m := cowCodecs.Load(); m != nil {
		for k, v := range *m {
			next[k] = v
		}
	}
	c := codecFor(typeKey[T]())
	next[typ] = c
	cowCodecs.Store(&next)
	return c
}

var sinkCodec *codec

// BenchmarkCodecLookup compares the slot table (codecFor, what the typed
// methods use) with a copy-on-write map, alone and inside ParseAs.
func BenchmarkCodecLookup(b *testing.B) {
	type T = Typed[benchCacheSpec]
	const in = "usr_M48oJk4HnzE"
	b.Run("slots", func(b *testing.B) {
		for b.Loop() {
			sinkCodec = codecFor(typeKey[T]())
		}
	})
	b.Run("cowmap", func(b *testing.B) {
		for b.Loop() {
			sinkCodec = cowCodecFor[T]()
		}
	})
	b.Run("parse-slots", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseText(codecFor(typeKey[T]()), in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse-cowmap", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseText(cowCodecFor[T](), in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
