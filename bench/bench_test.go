package bench

import (
	"runtime"
	"testing"

	"github.com/once-go/once/internal/cputime"
)

// Sub-benchmark names are part of the interface: tools read them as
// Benchmark<Op>/<impl>. Ours are prefixed "once"; peers carry their library's
// short name (xid, ulid, uuidv4, uuidv7, uuid, snowflake, sonyflake, typeid,
// ksuid).

// n is the number of pre-generated inputs each parse/format benchmark cycles
// through (indexed by i&mask), so no benchmark sees one constant value.
const (
	n    = 1024
	mask = n - 1
)

// Peers that build only with a newer Go than the modules' go line (the
// standard library's uuid package of Go 1.27, stduuid_test.go) add
// themselves here from an init function.
var extraGenerate, extraGenerateParallel, extraParse, extraFormat []impl

type impl struct {
	name string
	run  func(b *testing.B)
}

func runAll(b *testing.B, impls [][]impl) {
	for _, group := range impls {
		for _, im := range group {
			b.Run(im.name, im.run)
		}
	}
}

// runAllCPU is runAll for single-goroutine benchmarks: it also reports
// cpu-ns/op, the CPU time of the benchmark's OS thread per iteration. On a
// shared machine wall time (ns/op) includes the time other processes held
// the core; thread CPU time does not, so ratios of cpu-ns/op are the steadier
// comparison there. (Background GC work runs on other threads and is not
// counted: allocating implementations look slightly better by this metric.
// The sub-benchmark's set-up is included; it is negligible at -benchtime=1s
// but dominates with -benchtime=20x.)
func runAllCPU(b *testing.B, impls [][]impl) {
	for _, group := range impls {
		for _, im := range group {
			b.Run(im.name, func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t0 := cputime.Thread()
				im.run(b)
				if t1 := cputime.Thread(); t0 >= 0 && t1 >= 0 && b.N > 0 {
					b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// BenchmarkGenerate measures making one new ID on one goroutine.
// Rate-capped generators (once-sortable at 8,192/ms, snowflake at 4,096/ms,
// sonyflake at 256 per 10 ms) report their cap as the "ceiling-ids/s" metric:
// their ns/op is bounded below by the cap, not by the code.
func BenchmarkGenerate(b *testing.B) {
	runAllCPU(b, [][]impl{onceGenerate(), peerGenerate(), extraGenerate})
}

// BenchmarkGenerateParallel is BenchmarkGenerate with b.RunParallel
// (GOMAXPROCS goroutines sharing one generator, as a server would).
func BenchmarkGenerateParallel(b *testing.B) {
	runAll(b, [][]impl{onceGenerateParallel(), peerGenerateParallel(), extraGenerateParallel})
}

// BenchmarkParse measures text -> value over 1024 distinct canonical texts.
func BenchmarkParse(b *testing.B) { runAllCPU(b, [][]impl{onceParse(), peerParse(), extraParse}) }

// BenchmarkFormat measures value -> text into a reused buffer, using the
// library's append form where it has one.
func BenchmarkFormat(b *testing.B) { runAllCPU(b, [][]impl{onceFormat(), peerFormat(), extraFormat}) }

// reportCeiling records a generator's hard rate cap (IDs per second) so that
// readers of the output see that its ns/op is a ceiling, not a code cost.
// Call it after the loop: b.Loop's first call resets user metrics.
func reportCeiling(b *testing.B, idsPerSecond float64) {
	b.ReportMetric(idsPerSecond, "ceiling-ids/s")
}
