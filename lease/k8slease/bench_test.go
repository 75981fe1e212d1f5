package k8slease_test

import (
	"testing"

	"github.com/once-go/once/lease/k8slease"
)

// BenchmarkList512 lists a full pool (512 held Leases), what every
// Acquire does first, as a consistent read and from the API server's
// watch cache: its cost bounds how fast contenders can start.
func BenchmarkList512(b *testing.B) {
	cfg := restConfig(b)
	ns := namespace(b, clientset(b, cfg))
	fillAllBut(b, cfg, ns, -1)
	s := strategy(b, cfg, ns, k8slease.Options{})
	for _, cached := range []bool{false, true} {
		b.Run(map[bool]string{false: "consistent", true: "cached"}[cached], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if free, err := k8slease.Survey(s, b.Context(), cached); err != nil || free != 0 {
					b.Fatalf("List: %d free, %v", free, err)
				}
			}
		})
	}
}
