package bench

import (
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
	"github.com/sony/sonyflake"
	"go.jetify.com/typeid"
)

// Sinks: every benchmark stores its last result here so the compiler cannot
// drop the work. Parallel benchmarks store under sinkMu once per goroutine.
var (
	sinkMu        sync.Mutex
	sinkXID       xid.ID
	sinkULID      ulid.ULID
	sinkUUID      uuid.UUID
	sinkSnowflake snowflake.ID
	sinkUint64    uint64
	sinkTypeID    userTypeID
	sinkKSUID     ksuid.KSUID
	sinkBytes     []byte
	sinkErr       error
)

// userTypeID is a TypeID subtype with the prefix "user", the typical way to
// use go.jetify.com/typeid (and the analogue of our prefixed IDs).
type userPrefix struct{}

func (userPrefix) Prefix() string { return "user" }

type userTypeID struct{ typeid.TypeID[userPrefix] }

func newSnowflakeNode(tb testing.TB) *snowflake.Node {
	node, err := snowflake.NewNode(1)
	if err != nil {
		tb.Fatal(err)
	}
	return node
}

func newSonyflake(tb testing.TB) *sonyflake.Sonyflake {
	sf, err := sonyflake.New(sonyflake.Settings{
		StartTime: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		MachineID: func() (uint16, error) { return 1, nil },
	})
	if err != nil {
		tb.Fatal(err)
	}
	return sf
}

// Rate caps of the peers' generators, in IDs per second.
const (
	snowflakeCeiling = 4096 * 1000 // 12-bit step per millisecond
	sonyflakeCeiling = 256 * 100   // 8-bit sequence per 10 ms
)

func peerGenerate() []impl {
	return []impl{
		{"xid", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkXID = xid.New()
			}
		}},
		{"ulid", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkULID = ulid.Make()
			}
		}},
		{"uuidv4", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkUUID, sinkErr = uuid.NewRandom()
			}
		}},
		{"uuidv7", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkUUID, sinkErr = uuid.NewV7()
			}
		}},
		{"snowflake", func(b *testing.B) {
			node := newSnowflakeNode(b)
			b.ReportAllocs()
			for b.Loop() {
				sinkSnowflake = node.Generate()
			}
			reportCeiling(b, snowflakeCeiling)
		}},
		{"sonyflake", func(b *testing.B) {
			sf := newSonyflake(b)
			b.ReportAllocs()
			for b.Loop() {
				sinkUint64, sinkErr = sf.NextID()
			}
			reportCeiling(b, sonyflakeCeiling)
		}},
		{"typeid", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTypeID, sinkErr = typeid.New[userTypeID]()
			}
		}},
		{"ksuid", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkKSUID = ksuid.New()
			}
		}},
	}
}

func peerGenerateParallel() []impl {
	return []impl{
		{"xid", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last xid.ID
				for pb.Next() {
					last = xid.New()
				}
				sinkMu.Lock()
				sinkXID = last
				sinkMu.Unlock()
			})
		}},
		{"ulid", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last ulid.ULID
				for pb.Next() {
					last = ulid.Make()
				}
				sinkMu.Lock()
				sinkULID = last
				sinkMu.Unlock()
			})
		}},
		{"uuidv4", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last uuid.UUID
				var err error
				for pb.Next() {
					last, err = uuid.NewRandom()
				}
				sinkMu.Lock()
				sinkUUID, sinkErr = last, err
				sinkMu.Unlock()
			})
		}},
		{"uuidv7", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last uuid.UUID
				var err error
				for pb.Next() {
					last, err = uuid.NewV7()
				}
				sinkMu.Lock()
				sinkUUID, sinkErr = last, err
				sinkMu.Unlock()
			})
		}},
		{"snowflake", func(b *testing.B) {
			node := newSnowflakeNode(b)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last snowflake.ID
				for pb.Next() {
					last = node.Generate()
				}
				sinkMu.Lock()
				sinkSnowflake = last
				sinkMu.Unlock()
			})
			reportCeiling(b, snowflakeCeiling)
		}},
		{"sonyflake", func(b *testing.B) {
			sf := newSonyflake(b)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last uint64
				var err error
				for pb.Next() {
					last, err = sf.NextID()
				}
				sinkMu.Lock()
				sinkUint64, sinkErr = last, err
				sinkMu.Unlock()
			})
			reportCeiling(b, sonyflakeCeiling)
		}},
		{"typeid", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last userTypeID
				var err error
				for pb.Next() {
					last, err = typeid.New[userTypeID]()
				}
				sinkMu.Lock()
				sinkTypeID, sinkErr = last, err
				sinkMu.Unlock()
			})
		}},
		{"ksuid", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var last ksuid.KSUID
				for pb.Next() {
					last = ksuid.New()
				}
				sinkMu.Lock()
				sinkKSUID = last
				sinkMu.Unlock()
			})
		}},
	}
}

// Pre-generated peer values and their canonical texts.
type peerInputs struct {
	xid       [n]xid.ID
	xidText   [n]string
	ulid      [n]ulid.ULID
	ulidText  [n]string
	uuid      [n]uuid.UUID // alternating v4 and v7
	uuidText  [n]string
	snow      [n]snowflake.ID
	snowText  [n]string
	tid       [n]userTypeID
	tidText   [n]string
	ksuid     [n]ksuid.KSUID
	ksuidText [n]string
}

var peers = sync.OnceValue(func() *peerInputs {
	p := new(peerInputs)
	node, err := snowflake.NewNode(1)
	if err != nil {
		panic(err)
	}
	for i := range n {
		p.xid[i] = xid.New()
		p.xidText[i] = p.xid[i].String()
		p.ulid[i] = ulid.Make()
		p.ulidText[i] = p.ulid[i].String()
		if i%2 == 0 {
			p.uuid[i] = uuid.New()
		} else {
			p.uuid[i] = uuid.Must(uuid.NewV7())
		}
		p.uuidText[i] = p.uuid[i].String()
		p.snow[i] = node.Generate()
		p.snowText[i] = p.snow[i].String()
		p.tid[i] = typeid.Must(typeid.New[userTypeID]())
		p.tidText[i] = p.tid[i].String()
		p.ksuid[i] = ksuid.New()
		p.ksuidText[i] = p.ksuid[i].String()
	}
	return p
})

// peerParse uses each library's string parser. ulid uses ParseStrict, which
// rejects invalid characters as our parser does (ulid.Parse does not).
// google/uuid has one parser for every version: it appears once, as "uuid".
// sonyflake has no text form and is left out of Parse and Format.
func peerParse() []impl {
	return []impl{
		{"xid", func(b *testing.B) {
			in := &peers().xidText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkXID, sinkErr = xid.FromString(in[i&mask])
			}
		}},
		{"ulid", func(b *testing.B) {
			in := &peers().ulidText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkULID, sinkErr = ulid.ParseStrict(in[i&mask])
			}
		}},
		{"uuid", func(b *testing.B) {
			in := &peers().uuidText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkUUID, sinkErr = uuid.Parse(in[i&mask])
			}
		}},
		{"snowflake", func(b *testing.B) {
			in := &peers().snowText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkSnowflake, sinkErr = snowflake.ParseString(in[i&mask])
			}
		}},
		{"typeid", func(b *testing.B) {
			in := &peers().tidText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkTypeID, sinkErr = typeid.Parse[userTypeID](in[i&mask])
			}
		}},
		{"ksuid", func(b *testing.B) {
			in := &peers().ksuidText
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sinkKSUID, sinkErr = ksuid.Parse(in[i&mask])
			}
		}},
	}
}

// peerFormat writes into a reused buffer: xid.Encode, ulid.MarshalTextTo and
// ksuid.Append are allocation-free append/encode forms; google/uuid,
// snowflake and typeid only offer String, whose result is appended.
func peerFormat() []impl {
	return []impl{
		{"xid", func(b *testing.B) {
			in := &peers().xid
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf = in[i&mask].Encode(buf[:20])
			}
			sinkBytes = buf
		}},
		{"ulid", func(b *testing.B) {
			in := &peers().ulid
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf = buf[:ulid.EncodedSize]
				sinkErr = in[i&mask].MarshalTextTo(buf)
			}
			sinkBytes = buf
		}},
		{"uuid", func(b *testing.B) {
			in := &peers().uuid
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf = append(buf[:0], in[i&mask].String()...)
			}
			sinkBytes = buf
		}},
		{"snowflake", func(b *testing.B) {
			in := &peers().snow
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf = append(buf[:0], in[i&mask].String()...)
			}
			sinkBytes = buf
		}},
		{"typeid", func(b *testing.B) {
			in := &peers().tid
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf = append(buf[:0], in[i&mask].String()...)
			}
			sinkBytes = buf
		}},
		{"ksuid", func(b *testing.B) {
			in := &peers().ksuid
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				buf = in[i&mask].Append(buf[:0])
			}
			sinkBytes = buf
		}},
	}
}
