// Command hotloop runs one of the hot loops behind the NewAs target (one
// atomic add, Factory.Counter64, once.NewAs, once.New, Options.New) N times,
// for instruction counts under callgrind, which do not depend on the
// machine's load:
//
//	go build -o /tmp/hotloop ./cmd/hotloop
//	valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/hotloop newas 1000000
//	valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/hotloop newas 3000000
//
// (instructions per call: the difference of the two totals divided by
// 2,000,000; run.sh hot does it for every loop). "hotloop time ROUNDS" times
// chunks of 4,096 calls of each loop instead and prints the fastest chunk
// and the 10th percentile in ns per call: on a loaded machine the fastest
// chunks are the ones no other process interrupted.
package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type spec struct{}

var gen = new(once.Binding)

func (spec) Options() once.Options { return once.Options{Generator: gen} }

// ID is a typed counter ID bound to the loop's factory.
type ID = once.Typed[spec]

var (
	sinkU   uint64
	sinkID  ID
	sinkErr error
	word    struct { // padded like a counter word of a nonce factory
		_ [64]byte
		atomic.Uint64
		_ [56]byte
	}
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hotloop atomic|counter64|newas|new|options.new N  or  hotloop time ROUNDS")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "hotloop: N must be a positive number")
		os.Exit(2)
	}
	// A factory whose clock read an hour behind while it was built: an
	// hour of saved-up counter budget, as bench's idleFactory.
	var behind atomic.Int64
	behind.Store(int64(time.Hour))
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1, Now: func() time.Time { return time.Now().Add(-time.Duration(behind.Load())) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hotloop:", err)
		os.Exit(1)
	}
	behind.Store(0)
	gen.Set(f)
	once.DefaultBinding().Set(f)
	if _, err := once.NewAs[ID](); err != nil { // and fill the codec cache
		fmt.Fprintln(os.Stderr, "hotloop:", err)
		os.Exit(1)
	}
	ls := loops(f)
	if os.Args[1] == "time" {
		timeAll(ls, n)
		return
	}
	i := slices.IndexFunc(ls, func(l loop) bool { return l.name == os.Args[1] })
	if i < 0 {
		fmt.Fprintf(os.Stderr, "hotloop: unknown loop %q\n", os.Args[1])
		os.Exit(2)
	}
	ls[i].run(n)
	if sinkErr != nil {
		fmt.Fprintln(os.Stderr, "hotloop:", sinkErr)
		os.Exit(1)
	}
	if sinkU == 0 && sinkID.IsZero() {
		fmt.Fprintln(os.Stderr, "hotloop: the loop drew no value")
		os.Exit(1)
	}
}

type loop struct {
	name string
	run  func(n int)
}

func loops(f *nonce.Factory) []loop {
	o := ID{}.Options()
	return []loop{
		{"atomic", func(n int) {
			for range n {
				sinkU = word.Add(1)
			}
		}},
		{"counter64", func(n int) {
			for range n {
				sinkU, sinkErr = f.Counter64()
			}
		}},
		{"newas", func(n int) {
			for range n {
				sinkID, sinkErr = once.NewAs[ID]()
			}
		}},
		{"new", func(n int) {
			for range n {
				var id once.ID
				id, sinkErr = once.New()
				sinkU = id.Uint64()
			}
		}},
		{"options.new", func(n int) {
			for range n {
				var id once.ID
				id, sinkErr = o.New()
				sinkU = id.Uint64()
			}
		}},
	}
}

// timeAll times 2,000 chunks of 4,096 calls of each loop, rounds times.
func timeAll(ls []loop, rounds int) {
	const chunk, chunks = 4096, 2000
	for r := range rounds {
		for _, l := range ls {
			ds := make([]float64, 0, chunks)
			for range chunks {
				t := time.Now()
				l.run(chunk)
				ds = append(ds, float64(time.Since(t).Nanoseconds())/chunk)
			}
			slices.Sort(ds)
			fmt.Printf("round %d %-12s fastest %.2f  p10 %.2f ns/call\n", r+1, l.name, ds[0], ds[len(ds)/10])
		}
	}
}
