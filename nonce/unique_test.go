package nonce

import (
	"bytes"
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

const (
	uniqueWorkers = 8
	uniqueTotal   = 1 << 20 // values per kind and size, across all workers
	// encryptedTotal is the same for encrypted kinds, reduced under -race:
	// the cipher is a permutation, the concurrency under test is the base
	// kind's, which keeps its full count.
	encryptedTotal = uniqueTotal >> raceShift

	acrossLeasesPerWorker = 1 << 16
)

// scaled is n, or n/16 under -short (the fast path, .ci/fast): fewer
// values, the same goroutines and checks.
func scaled(n int) int {
	if testing.Short() {
		return n >> 4
	}
	return n
}

// draw runs workers goroutines that together draw total values from gen and
// returns them per worker, in the order each worker got them.
func draw[T any](t *testing.T, gen func() (T, error), workers, total int) [][]T {
	t.Helper()
	out := make([][]T, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			vals := make([]T, 0, total/workers)
			for range total / workers {
				v, err := gen()
				if err != nil {
					t.Error(err)
					return
				}
				vals = append(vals, v)
			}
			out[w] = vals
		})
	}
	wg.Wait()
	return out
}

// checkUnique fails if any value repeats across all workers; when ordered,
// also if any worker saw a value not above its previous one.
func checkUnique[T any](t *testing.T, perWorker [][]T, total int, compare func(a, b T) int, ordered bool) {
	t.Helper()
	var all []T
	for w, vals := range perWorker {
		if ordered {
			for i := 1; i < len(vals); i++ {
				if compare(vals[i-1], vals[i]) >= 0 {
					t.Fatalf("worker %d: value %d (%v) not above value %d (%v)", w, i, vals[i], i-1, vals[i-1])
				}
			}
		}
		all = append(all, vals...)
	}
	if len(all) < total {
		t.Fatalf("drew only %d values", len(all))
	}
	slices.SortFunc(all, compare)
	for i := 1; i < len(all); i++ {
		if compare(all[i-1], all[i]) == 0 {
			t.Fatalf("value %v drawn twice", all[i])
		}
	}
}

func cmp96(a, b [12]byte) int  { return bytes.Compare(a[:], b[:]) }
func cmp128(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) }

func TestUniqueConcurrent(t *testing.T) {
	type sizes struct {
		g64  func() (uint64, error)
		g96  func() ([12]byte, error)
		g128 func() ([16]byte, error)
	}
	plain := mustNew(t, Config{Fixed: true, MachineID: 12})
	cases := []struct {
		name    string
		s       sizes
		ordered bool
		total   int
	}{
		{"counter", sizes{plain.Counter64, plain.Counter96, plain.Counter128}, true, uniqueTotal},
		{"sortable", sizes{plain.Sortable64, plain.Sortable96, plain.Sortable128}, true, uniqueTotal},
	}
	for _, c := range []struct {
		name           string
		c64, c96, c128 Cipher
		base           Kind
	}{
		{"default", CipherDefault, CipherDefault, CipherDefault, Counter},
		{"speck", Speck, Speck, Speck, Counter},
		{"des3", DES3, DES3, AES, Counter},
		{"default-sortable", CipherDefault, CipherDefault, CipherDefault, Sortable},
	} {
		f := mustNew(t, Config{Fixed: true, MachineID: 12, BaseKey: testBaseKey,
			Cipher64: c.c64, Cipher96: c.c96, Cipher128: c.c128, EncryptedBase: c.base})
		cases = append(cases, struct {
			name    string
			s       sizes
			ordered bool
			total   int
		}{"encrypted-" + c.name, sizes{f.Encrypted64, f.Encrypted96, f.Encrypted128}, false, encryptedTotal})
	}
	for _, c := range cases {
		c.total = scaled(c.total)
		t.Run(c.name+"/64", func(t *testing.T) {
			checkUnique(t, draw(t, c.s.g64, uniqueWorkers, c.total), c.total, cmp.Compare[uint64], c.ordered)
		})
		t.Run(c.name+"/96", func(t *testing.T) {
			checkUnique(t, draw(t, c.s.g96, uniqueWorkers, c.total), c.total, cmp96, c.ordered)
		})
		t.Run(c.name+"/128", func(t *testing.T) {
			checkUnique(t, draw(t, c.s.g128, uniqueWorkers, c.total), c.total, cmp128, c.ordered)
		})
	}
}

// TestUniqueAcrossLeases draws from many goroutines while the factory is
// re-activated again and again with the same machine ID: values drawn by
// calls in flight during an Activate must not repeat in the next lease.
func TestUniqueAcrossLeases(t *testing.T) {
	for _, kind := range []string{"counter64", "sortable64", "counter96", "counter128", "sortable128"} {
		t.Run(kind, func(t *testing.T) {
			f := mustNew(t, Config{Fixed: true, MachineID: 8})
			// All kinds are compared as their first 64 bits plus a digest
			// of the rest, which keeps one slice type.
			gens := map[string]func() ([16]byte, error){
				"counter64":   func() ([16]byte, error) { v, err := f.Counter64(); return widen(be64(v)), err },
				"sortable64":  func() ([16]byte, error) { v, err := f.Sortable64(); return widen(be64(v)), err },
				"counter96":   func() ([16]byte, error) { v, err := f.Counter96(); return widen(v[:]), err },
				"counter128":  f.Counter128,
				"sortable128": f.Sortable128,
			}
			gen := gens[kind]
			perWorker := scaled(acrossLeasesPerWorker)
			var (
				wg    sync.WaitGroup
				stop  = make(chan struct{})
				out   = make([][][16]byte, uniqueWorkers)
				drawn atomic.Int64
			)
			for w := range uniqueWorkers {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						if len(out[w]) == perWorker {
							return
						}
						v, err := gen()
						if err != nil {
							continue // between Disable and Activate
						}
						out[w] = append(out[w], v)
						drawn.Add(1)
					}
				})
			}
			for i := range 300 {
				// Let the workers draw from every lease.
				for last := drawn.Load(); drawn.Load() < last+50; {
					if drawn.Load() >= int64(uniqueWorkers*perWorker-50) {
						break
					}
					runtime.Gosched()
				}
				if i%3 == 0 {
					f.Disable()
				}
				if err := f.Activate(8, timeZero, timeZero); err != nil {
					t.Fatal(err)
				}
			}
			close(stop)
			wg.Wait()
			n := 0
			var all [][16]byte
			for _, vals := range out {
				n += len(vals)
				all = append(all, vals...)
			}
			if n == 0 {
				t.Fatal("no values drawn")
			}
			slices.SortFunc(all, cmp128)
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					t.Fatalf("value %x drawn twice among %d", all[i], n)
				}
			}
			t.Logf("%d values over 300 leases", n)
		})
	}
}

func widen(b []byte) (w [16]byte) {
	copy(w[:], b)
	return w
}
