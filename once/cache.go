package once

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Go compiles the methods of Typed[K] once for all zero-size kinds (GC shape
// stenciling), so K{}.Options() is an indirect call that does not inline;
// on a typical server it costs more than parsing an ID. The codec of each ID
// type is therefore built once, on first use, and found again through a
// small lock-free table keyed by the type's runtime type word.

const (
	cacheSize  = 256 // slots; power of two
	cacheProbe = 8   // linear probes before the overflow map
)

var (
	codecs        [cacheSize]atomic.Pointer[codec]
	codecOverflow sync.Map // uintptr -> *codec, when the probes are full
)

// typeKey identifies type T: the type word of a nil *T in an interface. Type
// descriptors never move, so the word is a stable identity.
func typeKey[T any]() uintptr {
	e := any((*T)(nil))
	return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0])
}

// slotOf hashes a type key to its first slot (Fibonacci hashing).
func slotOf(key uintptr) uint64 { return uint64(key) * 0x9E3779B97F4A7C15 >> 56 }

// codecOf returns the cached codec of ID type T.
func codecOf[T IDType]() *codec {
	key := typeKey[T]()
	if c := codecs[slotOf(key)].Load(); c != nil && c.key == key {
		return c
	}
	return loadCodec[T](key)
}

// loadCodec finds or builds the codec of T (the slow path of codecOf).
func loadCodec[T IDType](key uintptr) *codec {
	h := slotOf(key)
	for i := range uint64(cacheProbe) {
		c := codecs[(h+i)%cacheSize].Load()
		if c == nil {
			break
		}
		if c.key == key {
			return c
		}
	}
	if c, ok := codecOverflow.Load(key); ok {
		return c.(*codec)
	}
	var t T
	o, err := t.options()
	c := &codec{opts: o, err: err}
	if err == nil {
		r, err := o.resolve()
		*c = r
		c.err = err
	}
	if c.err != nil {
		c.err = inType(c.err, reflect.TypeFor[T]().String())
	}
	c.key = key
	for i := range uint64(cacheProbe) {
		slot := &codecs[(h+i)%cacheSize]
		if slot.CompareAndSwap(nil, c) {
			return c
		}
		if old := slot.Load(); old.key == key {
			return old
		}
	}
	old, _ := codecOverflow.LoadOrStore(key, c)
	return old.(*codec)
}
