package once

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Go compiles the methods of Typed[S] once for all zero-size specs (GC shape
// stenciling), so K{}.Options() is an indirect call that does not inline;
// on a typical server it costs more than parsing an ID. The codec of each ID
// type is therefore built once, on first use, and found again through a
// small lock-free table of slots keyed by the type's runtime type word: the
// first word of an interface holding a *T, which the runtime never moves
// (typeKey). The lookup (codecFor) stays within the compiler's inlining
// budget, so a typed method costs one call: every slot always holds a codec
// (empty ones the keyless noCodec) and the slot index is a shift of the
// key. It earns the layout trick: BenchmarkCodecLookup (cache_internal_test.go)
// measured ~6 ns for a lookup here against ~80 ns for a copy-on-write
// map[reflect.Type]*codec, and ~60 against ~110 ns for a whole prefixed
// ParseAs, on a loaded 2-core machine.

const (
	cacheSize  = 256 // slots; the index is a uint8
	cacheProbe = 8   // linear probes before the overflow map
)

var (
	slots         [cacheSize]unsafe.Pointer // *codec, never nil: noCodec marks a free slot
	codecOverflow sync.Map                  // type key (unsafe.Pointer) -> *codec, when the probes are full
	noCodec       codec                     // key nil: matches no type
)

func init() {
	for i := range slots {
		slots[i] = unsafe.Pointer(&noCodec)
	}
}

// typeKey identifies type T: the type word of a nil *T in an interface. Type
// descriptors never move, so the word is a stable identity, and it leads
// back to the type (typeOfKey).
func typeKey[T any]() unsafe.Pointer {
	e := any((*T)(nil))
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0]
}

// typeOfKey returns the type T whose typeKey is key.
func typeOfKey(key unsafe.Pointer) reflect.Type {
	var e any
	(*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] = key // a nil *T
	return reflect.TypeOf(e).Elem()
}

// slotOf returns the first slot a type key is looked for in.
func slotOf(key unsafe.Pointer) uint8 { return uint8(uintptr(key) >> 4) }

// codecFor returns the codec of the ID type whose type key is key. It
// inlines (cost 79 of 80 with Go 1.26; keep it this small): the miss path
// is a plain, non-generic call.
func codecFor(key unsafe.Pointer) (c *codec) {
	if c = (*codec)(atomic.LoadPointer(&slots[uint8(uintptr(key)>>4)])); c.key != key {
		c = loadCodec(key)
	}
	return
}

// declarer is what loadCodec needs of an ID type: its declared options.
type declarer interface {
	options() (Options, error)
}

// loadCodec finds or builds the codec of the ID type whose type key is key
// (the slow path of codecFor).
func loadCodec(key unsafe.Pointer) *codec {
	h := slotOf(key)
	for i := range uint8(cacheProbe) {
		c := (*codec)(atomic.LoadPointer(&slots[h+i]))
		if c == &noCodec {
			break
		}
		if c.key == key {
			return c
		}
	}
	if c, ok := codecOverflow.Load(key); ok {
		return c.(*codec)
	}
	typ := typeOfKey(key)
	o, err := reflect.Zero(typ).Interface().(declarer).options()
	c := &codec{opts: o, err: err}
	if err == nil {
		r, err := o.resolve()
		*c = r
		c.err = err
	}
	if c.err != nil {
		c.err = inType(c.err, typ.String())
	}
	c.key = key
	for i := range uint8(cacheProbe) {
		slot := &slots[h+i] // uint8 arithmetic wraps around the table
		if atomic.CompareAndSwapPointer(slot, unsafe.Pointer(&noCodec), unsafe.Pointer(c)) {
			return c
		}
		if old := (*codec)(atomic.LoadPointer(slot)); old.key == key {
			return old
		}
	}
	old, _ := codecOverflow.LoadOrStore(key, c)
	return old.(*codec)
}
