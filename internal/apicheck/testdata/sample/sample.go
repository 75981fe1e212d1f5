// Package sample is a fixture of apicheck's tests. Its doc names
// helperFunc, which a reader cannot follow, and "the lost cause", which is
// English.
package sample

import "example.com/m/internal/lane"

// Exported in a default build: Counter, Counter.Draw, Limit, KindA,
// KindB, Kind, Reader, Reader.Read, New (9 names) and Counter.Max,
// Counter.Inner, Counter.Inner.Deep (3 fields).

// Counter counts; see Counter.draw and counter.go.
type Counter struct {
	// Max bounds it (the Counter.limit field is not shown).
	Max   int
	limit int
	// Inner is a nested struct.
	Inner struct {
		Deep int // see initAt
		low  int
	}
}

// Draw draws n values; it calls lane.Lane.Draw.
func (c *Counter) Draw(n int) int { return n + c.limit + c.Inner.low }

func (c *Counter) draw() {}

// Limit is the limit (see `jitter`, the lost cause, jitter() and [jitter]).
const Limit = 3

const (
	// KindA is a kind (initAt is unexported).
	KindA Kind = iota
	KindB
	kindC
)

// Kind is a kind.
type Kind int

// Reader reads, see pkg.go.dev and go.mod, and github.com/x/once-go/y;
// leasehook.With is internal to the repository.
type Reader interface {
	// Read reads p; readMore is hidden.
	Read(p []byte) (n int, err error)
	readMore()
}

// New makes a Counter from initAt (a parameter, whatever else has the
// name).
func New(initAt int) *Counter { return &Counter{Max: initAt} }

var initAt = lane.X

func helperFunc() {}

func jitter() {}

type state struct{ initAt int }
