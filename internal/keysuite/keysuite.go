// Package keysuite holds the tests of key fingerprints that run once per
// coordinator: each lease holder records the fingerprint of its factories'
// base key, and a manager warns about (or, with
// lease.Options.RefuseKeyMismatch, refuses to start beside) a live holder
// with another one. The root module's strategy tests run it on SQL and
// Redis; the etcdlease and k8slease modules on theirs.
package keysuite

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// Coordinator is one coordinator the suite runs on. Setup prepares a fresh
// namespace (removed when the test ends) and returns a constructor of
// independent strategies on it, as separate processes would hold; and, if
// the coordinator is shared with the Elixir library, foreign, which makes
// a live holding there as that library does (no holder, no fingerprint)
// and returns its machine ID.
type Coordinator struct {
	Name  string
	Setup func(t *testing.T) (newStrategy func() driver.Strategy, foreign func(t *testing.T) int)
}

// Run runs every check on every coordinator, each as a subtest.
func Run(t *testing.T, cs []Coordinator) {
	for _, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			t.Run("Recorded", func(t *testing.T) { recorded(t, c) })
			t.Run("Mismatch", func(t *testing.T) { mismatch(t, c) })
			t.Run("SameKey", func(t *testing.T) { sameKey(t, c) })
			t.Run("Unknown", func(t *testing.T) { unknown(t, c) })
		})
	}
}

// NewKey returns a random 32-byte base key.
func NewKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// Fingerprint is nonce.Fingerprint of key.
func Fingerprint(t testing.TB, key []byte) string {
	t.Helper()
	fp, err := nonce.Fingerprint(key)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// process is one lease manager and what it reported.
type process struct {
	m      *lease.Manager
	err    error // of Start
	mu     sync.Mutex
	events []lease.Event
	log    bytes.Buffer
}

func (p *process) mismatches() []lease.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []lease.Event
	for _, e := range p.events {
		if e.Kind == lease.EventKeyMismatch {
			out = append(out, e)
		}
	}
	return out
}

func (p *process) logged() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

type lockedWriter struct{ p *process }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.log.Write(b)
}

// start starts a manager on s protecting a factory with key (none when
// nil); it is closed when the test ends.
func start(t *testing.T, s driver.Strategy, key []byte, refuse bool) *process {
	t.Helper()
	f, err := nonce.New(nonce.Config{BaseKey: key})
	if err != nil {
		t.Fatal(err)
	}
	p := &process{}
	p.m, p.err = lease.Start(t.Context(), s, lease.Options{
		Factories:         []*nonce.Factory{f},
		RefuseKeyMismatch: refuse,
		Logger:            slog.New(slog.NewTextHandler(lockedWriter{p}, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Events: func(e lease.Event) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.events = append(p.events, e)
		},
	})
	if p.m != nil {
		t.Cleanup(func() { p.m.Close(context.Background()) })
	}
	return p
}

func mustStart(t *testing.T, s driver.Strategy, key []byte, refuse bool) *process {
	t.Helper()
	p := start(t, s, key, refuse)
	if p.err != nil {
		t.Fatalf("Start: %v", p.err)
	}
	return p
}

func list(t *testing.T, s driver.Strategy) []driver.Slot {
	t.Helper()
	l, ok := s.(driver.Lister)
	if !ok {
		t.Fatalf("%s does not implement driver.Lister", s.Name())
	}
	slots, err := l.List(t.Context())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return slots
}

// awaitListed waits (up to 2s) until a new strategy lists machine ID id:
// a listing may lag a moment behind the write (Kubernetes reads the API
// server's watch cache).
func awaitListed(t *testing.T, newStrategy func() driver.Strategy, id int) {
	t.Helper()
	for try := 0; try < 20; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		for _, sl := range list(t, newStrategy()) {
			if sl.MachineID == id {
				return
			}
		}
	}
	t.Fatalf("machine ID %d, held, is not listed", id)
}

// recorded: a manager's holding is listed with the fingerprint of its
// factory's key, beside the holder's name (which does not carry it); a
// manager without a key records none.
func recorded(t *testing.T, c Coordinator) {
	newStrategy, _ := c.Setup(t)
	key := NewKey()
	a := mustStart(t, newStrategy(), key, false)
	b := mustStart(t, newStrategy(), nil, false)
	awaitListed(t, newStrategy, a.m.MachineID())
	awaitListed(t, newStrategy, b.m.MachineID())
	for _, sl := range list(t, newStrategy()) {
		want := ""
		switch sl.MachineID {
		case a.m.MachineID():
			want = Fingerprint(t, key)
		case b.m.MachineID():
		default:
			t.Errorf("machine ID %d listed; only %d and %d are held", sl.MachineID, a.m.MachineID(), b.m.MachineID())
		}
		if sl.Fingerprint != want {
			t.Errorf("machine ID %d is listed with key fingerprint %q, want %q", sl.MachineID, sl.Fingerprint, want)
		}
		if sl.Holder == "" || strings.Contains(sl.Holder, "key=") {
			t.Errorf("machine ID %d is listed with holder %q, want the holder's name alone", sl.MachineID, sl.Holder)
		}
	}
}

// mismatch: beside a live holder with another key, a manager emits an
// EventKeyMismatch naming that holder and warns; with RefuseKeyMismatch,
// Start fails with ErrConfig, naming the option, and holds nothing.
func mismatch(t *testing.T, c Coordinator) {
	newStrategy, _ := c.Setup(t)
	keyA, keyB := NewKey(), NewKey()
	a := mustStart(t, newStrategy(), keyA, false)
	awaitListed(t, newStrategy, a.m.MachineID())
	b := mustStart(t, newStrategy(), keyB, false)
	awaitListed(t, newStrategy, b.m.MachineID())
	ev := b.mismatches()
	if len(ev) == 0 {
		t.Fatalf("no %s event beside a holder with another key; events: %+v", lease.EventKeyMismatch, b.events)
	}
	if ev[0].MachineID != a.m.MachineID() || !errors.Is(ev[0].Err, lease.ErrConfig) ||
		!strings.Contains(ev[0].Err.Error(), Fingerprint(t, keyA)) {
		t.Errorf("%s event %+v: want machine ID %d, an error matching ErrConfig naming key fingerprint %s",
			lease.EventKeyMismatch, ev[0], a.m.MachineID(), Fingerprint(t, keyA))
	}
	if log := b.logged(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "another base key") {
		t.Errorf("no warning logged about the other key; log:\n%s", log)
	}
	if len(a.mismatches()) != 0 {
		// a counted the pool before b held anything.
		t.Errorf("the first holder reported a mismatch at its start: %+v", a.mismatches())
	}

	before := len(list(t, newStrategy()))
	r := start(t, newStrategy(), keyB, true)
	if r.err == nil {
		t.Fatalf("Start with RefuseKeyMismatch beside holders with another key: started on machine ID %d", r.m.MachineID())
	}
	if !errors.Is(r.err, lease.ErrConfig) || !strings.Contains(r.err.Error(), "RefuseKeyMismatch") {
		t.Errorf("Start error %q: want one matching ErrConfig that names RefuseKeyMismatch", r.err)
	}
	if after := len(list(t, newStrategy())); after != before {
		t.Errorf("a refused Start left %d machine IDs held, %d before", after, before)
	}
}

// sameKey: holders with one key neither warn nor refuse.
func sameKey(t *testing.T, c Coordinator) {
	newStrategy, _ := c.Setup(t)
	key := NewKey()
	a := mustStart(t, newStrategy(), key, false)
	awaitListed(t, newStrategy, a.m.MachineID())
	b := mustStart(t, newStrategy(), key, true)
	for who, p := range map[string]*process{"first": a, "second": b} {
		if ev := p.mismatches(); len(ev) != 0 {
			t.Errorf("the %s holder reported a mismatch with the same key: %+v", who, ev)
		}
		if log := p.logged(); strings.Contains(log, "another base key") {
			t.Errorf("the %s holder warned with the same key:\n%s", who, log)
		}
	}
}

// unknown: holders that recorded no fingerprint (a manager without a key;
// on a coordinator shared with the Elixir library, its holding) never
// count as a mismatch, even with RefuseKeyMismatch.
func unknown(t *testing.T, c Coordinator) {
	newStrategy, foreign := c.Setup(t)
	unkeyed := mustStart(t, newStrategy(), nil, false)
	awaitListed(t, newStrategy, unkeyed.m.MachineID())
	if foreign != nil {
		id := foreign(t)
		awaitListed(t, newStrategy, id)
		for _, sl := range list(t, newStrategy()) {
			if sl.MachineID == id && sl.Fingerprint != "" {
				t.Errorf("the Elixir-style holding of machine ID %d is listed with key fingerprint %q", id, sl.Fingerprint)
			}
		}
	}
	p := mustStart(t, newStrategy(), NewKey(), true)
	if ev := p.mismatches(); len(ev) != 0 {
		t.Errorf("holders without a fingerprint counted as a mismatch: %+v", ev)
	}
	if log := p.logged(); strings.Contains(log, "another base key") {
		t.Errorf("holders without a fingerprint were warned about:\n%s", log)
	}
}
