package once_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// fixedClock returns a clock that reads t on every call.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

var genBinding once.Binding

type (
	genCounter   struct{}
	genSortable  struct{}
	genEncrypted struct{}
)

func (genCounter) Options() once.Options { return once.Options{Prefix: "c_", Generator: &genBinding} }
func (genSortable) Options() once.Options {
	return once.Options{Nonce: nonce.Sortable, Generator: &genBinding}
}
func (genEncrypted) Options() once.Options {
	return once.Options{Nonce: nonce.Encrypted, Generator: &genBinding}
}

func TestNewWithoutGenerator(t *testing.T) {
	once.DefaultBinding().Set(nil)
	id, err := once.New()
	if !errors.Is(err, once.ErrNoGenerator) || !id.IsZero() {
		t.Errorf("New without generator = %v, %v", id, err)
	}
	genBinding.Set(nil)
	u, err := once.NewAs[once.Typed[genCounter]]()
	if !errors.Is(err, once.ErrNoGenerator) || !u.IsZero() {
		t.Errorf("NewAs without generator = %v, %v", u, err)
	}
}

func TestNewAwaitingLease(t *testing.T) {
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	if once.DefaultBinding().Factory() != f {
		t.Fatal("DefaultBinding().Factory() is not the factory just set")
	}
	id, err := once.New()
	if !errors.Is(err, nonce.ErrDisabled) || !id.IsZero() {
		t.Fatalf("New before the lease = %v, %v; want nonce.ErrDisabled", id, err)
	}
	if err := f.Activate(3, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	id, err = once.New()
	if err != nil || id.IsZero() {
		t.Fatalf("New after Activate = %v, %v", id, err)
	}
	if p := nonce.Split64(id.Uint64(), time.Time{}); p.MachineID != 3 {
		t.Errorf("machine ID %d, want 3", p.MachineID)
	}
	f.Disable()
	if id, err := once.New(); !errors.Is(err, nonce.ErrDisabled) || !id.IsZero() {
		t.Errorf("New after Disable = %v, %v", id, err)
	}
}

func TestNewKinds(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 9, Now: fixedClock(at), BaseKey: testBaseKey})
	if err != nil {
		t.Fatal(err)
	}
	// Bind late: the types may have been used (and their options cached)
	// before; the binding is looked up on every call.
	genBinding.Set(f)
	defer genBinding.Set(nil)

	c, err := once.NewAs[once.Typed[genCounter]]()
	if err != nil {
		t.Fatal(err)
	}
	if p := nonce.Split64(c.Uint64(), time.Time{}); !p.Time.Equal(at) || p.MachineID != 9 || p.Counter != 0 {
		t.Errorf("counter parts = %+v", p)
	}
	s, err := once.NewAs[once.Typed[genSortable]]()
	if err != nil {
		t.Fatal(err)
	}
	if p := nonce.Split64(s.Uint64(), time.Time{}); !p.Time.Equal(at) || p.MachineID != 9 {
		t.Errorf("sortable parts = %+v", p)
	}
	e, err := once.NewAs[once.Typed[genEncrypted]]()
	if err != nil || e.IsZero() {
		t.Fatalf("encrypted = %v, %v", e, err)
	}
	if d, err := f.Decrypt64(e.Uint64()); err != nil || nonce.Split64(d, time.Time{}).MachineID != 9 {
		t.Errorf("encrypted ID does not decrypt to a nonce of machine 9: %v", err)
	}
	// The default generator is not used by a type with its own binding.
	once.DefaultBinding().Set(nil)
	if _, err := once.NewAs[once.Typed[genCounter]](); err != nil {
		t.Errorf("bound type used the default generator: %v", err)
	}
	// Options.New for run-time options.
	if id, err := (once.Options{Nonce: nonce.Sortable, Generator: once.Bind(f)}).New(); err != nil || id.IsZero() {
		t.Errorf("Options.New = %v, %v", id, err)
	}
	// Encrypted without key material.
	plainF, _ := nonce.New(nonce.Config{Fixed: true})
	genBinding.Set(plainF)
	if id, err := once.NewAs[once.Typed[genEncrypted]](); !errors.Is(err, nonce.ErrNoKey) || !id.IsZero() {
		t.Errorf("encrypted without key = %v, %v", id, err)
	}
}

func TestNewConcurrentUnique(t *testing.T) {
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	if err != nil {
		t.Fatal(err)
	}
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	const goroutines, each = 8, 2000
	var mu sync.Mutex
	seen := make(map[UserID]bool, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			ids := make([]UserID, 0, each)
			for range each {
				id, err := once.NewAs[UserID]()
				if err != nil {
					t.Error(err)
					return
				}
				ids = append(ids, id)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ids {
				if seen[id] {
					t.Errorf("duplicate %v", id)
				}
				seen[id] = true
			}
		})
	}
	wg.Wait()
	if len(seen) != goroutines*each {
		t.Errorf("%d unique IDs, want %d", len(seen), goroutines*each)
	}
}
