//go:build go1.27

package bench

import (
	"sync"
	"testing"
	"uuid"
)

// The standard library's uuid package (Go 1.27): uuid.NewV7 and uuid.New
// (at present the same as NewV4), Parse, and AppendText into the reused
// buffer. Its generators have no rate bound, so their burst and sustained
// costs are one figure. This file builds only with Go 1.27 or later (the
// modules' go lines stay at the oldest Go they support); .ci/go127 runs it.

var sinkStdUUID uuid.UUID

func init() {
	extraGenerate = append(extraGenerate,
		impl{"std-uuidv7", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkStdUUID = uuid.NewV7()
			}
		}},
		impl{"std-uuidv4", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkStdUUID = uuid.New()
			}
		}},
	)
	extraGenerateParallel = append(extraGenerateParallel,
		impl{"std-uuidv7", func(b *testing.B) { stdParallel(b, uuid.NewV7) }},
		impl{"std-uuidv4", func(b *testing.B) { stdParallel(b, uuid.New) }},
	)
	extraParse = append(extraParse, impl{"std-uuid", func(b *testing.B) {
		in := &stdUUIDs().text
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sinkStdUUID, sinkErr = uuid.Parse(in[i&mask])
		}
	}})
	extraFormat = append(extraFormat, impl{"std-uuid", func(b *testing.B) {
		in := &stdUUIDs().ids
		buf := make([]byte, 0, 64)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			buf, sinkErr = in[i&mask].AppendText(buf[:0])
		}
		sinkBytes = buf
	}})
}

func stdParallel(b *testing.B, gen func() uuid.UUID) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var last uuid.UUID
		for pb.Next() {
			last = gen()
		}
		sinkMu.Lock()
		sinkStdUUID = last
		sinkMu.Unlock()
	})
}

// stdUUIDs are pre-generated standard UUIDs, alternating v4 and v7, and
// their canonical texts.
var stdUUIDs = sync.OnceValue(func() *struct {
	ids  [n]uuid.UUID
	text [n]string
} {
	p := new(struct {
		ids  [n]uuid.UUID
		text [n]string
	})
	for i := range n {
		if i%2 == 0 {
			p.ids[i] = uuid.New()
		} else {
			p.ids[i] = uuid.NewV7()
		}
		p.text[i] = p.ids[i].String()
	}
	return p
})
