package once

import (
	"reflect"
	"testing"
	"unsafe"
)

type ka struct{}
type kb struct{}

func (ka) Options() Options { return Options{Prefix: "a_"} }
func (kb) Options() Options { return Options{Prefix: "b_"} }

func TestTypeKeyDistinct(t *testing.T) {
	a, b := typeKey[Typed[ka]](), typeKey[Typed[kb]]()
	t.Logf("%#x %#x %#x", a, b, typeKey[ID]())
	if a == b || a == typeKey[ID]() {
		t.Fatal("type keys collide")
	}
	if got := typeOfKey(a); got != reflect.TypeFor[Typed[ka]]() {
		t.Fatalf("typeOfKey = %v", got)
	}
	if got := typeOfKey(typeKey[ID]()); got != reflect.TypeFor[ID]() {
		t.Fatalf("typeOfKey = %v", got)
	}
	if codecFor(typeKey[Typed[ka]]()).prefix != "a_" || codecFor(typeKey[Typed[kb]]()).prefix != "b_" {
		t.Fatal("codecs mixed up")
	}
}

type kc struct{}

func (kc) Options() Options { return Options{Prefix: "c_"} }

// TestCodecOverflow fills the probe window of a type with other entries:
// the codec then lives in the overflow map, and is found there again.
func TestCodecOverflow(t *testing.T) {
	key := typeKey[Typed[kc]]()
	h := slotOf(key)
	var saved [cacheProbe]*codec
	var others [cacheProbe]byte // addresses no type has
	for i := range uint8(cacheProbe) {
		slot := &slots[h+i]
		saved[i] = (*codec)(*slot)
		if saved[i] == &noCodec {
			*slot = unsafe.Pointer(&codec{key: unsafe.Pointer(&others[i])})
		}
	}
	defer func() {
		for i := range uint8(cacheProbe) {
			slots[h+i] = unsafe.Pointer(saved[i])
		}
	}()
	for range 3 {
		c := codecFor(typeKey[Typed[kc]]())
		if c.prefix != "c_" || c.key != key {
			t.Fatalf("codec %+v", c)
		}
	}
	if _, ok := codecOverflow.Load(key); !ok {
		t.Fatal("codec not in the overflow map")
	}
	if got := (Typed[kc]{1}).String(); got != "c_AAAAAAAAAAE" {
		t.Fatalf("String = %q", got)
	}
}

type kd struct{}

func (kd) Options() Options { return Options{Prefix: "d_", Format: Hex} }

// TestCodecConcurrentFirstUse: goroutines racing on a type's first use all
// get the same options.
func TestCodecConcurrentFirstUse(t *testing.T) {
	done := make(chan *codec)
	for range 16 {
		go func() { done <- codecFor(typeKey[Typed[kd]]()) }()
	}
	for range 16 {
		if c := <-done; c.prefix != "d_" || c.format != Hex {
			t.Errorf("codec %+v", c)
		}
	}
}

// BenchmarkOptionsLookup compares calling K{}.Options() and validating the
// result on every operation with the cached codec lookup that Typed uses.
func BenchmarkOptionsLookup(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if codecFor(typeKey[Typed[ka]]()).prefix == "" {
				b.Fatal()
			}
		}
	})
	b.Run("call-and-validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o, _ := Typed[ka]{}.options()
			if c, err := o.resolve(); err != nil || c.prefix == "" {
				b.Fatal(err)
			}
		}
	})
}
