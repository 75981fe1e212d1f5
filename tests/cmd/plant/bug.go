package main

// A Bug is one real lease protocol bug, planted by replacing text in a copy
// of the tree. Every Old must occur exactly once in its file: a catalogue
// entry whose text the code no longer holds fails the run, naming it,
// instead of planting nothing.
type Bug struct {
	Name  string  // a short slug: the -bug flag and the matrix row
	Class Class   // what the bug breaks
	What  string  // one line: the bug as a reviewer would describe it
	Patch []Patch // applied in order to the copy

	// Targeted is the test written for this failure mode: a go test run
	// in the copy, with the oncetest tag.
	Targeted Check
	// Coordinator is the soak's -coordinator for this bug: the strategy
	// the bug is planted in, or postgres for the manager and the factory.
	Coordinator string
	// Equivalent, when set, argues in one line why no check can catch the
	// bug (the change does not alter behaviour); the matrix shows it.
	Equivalent string
	// SoakBlind, when set, argues in one line why the contention soak
	// cannot provoke this bug of a contested class (its other checks
	// must catch it); the matrix shows it beside the soak's verdict.
	SoakBlind string
	// Open, when set, says in one line why no check catches this bug yet
	// and what would: a known gap. -pick leaves it out (CI must not fail on
	// a gap it knows), a run reports it as open rather than failing, and
	// one that catches it says so, so that the note can go.
	Open string
}

// Patch replaces Old by New in File (slash-separated, relative to the
// repository root).
type Patch struct {
	File, Old, New string
}

// Check is one go test run: Dir is the module directory relative to the
// root ("." or "tests"), Pkgs the packages, Run the -run pattern.
type Check struct {
	Dir  string
	Pkgs []string
	Run  string
}

// Class names what a bug breaks. The contention soak must catch every bug
// of the classes Contested reports.
type Class string

const (
	ClassClaim    Class = "claim"    // taking a free ID: the compare-and-set
	ClassRenew    Class = "renew"    // extending a held lease
	ClassFree     Class = "free"     // when an ID counts as free
	ClassExpiry   Class = "expiry"   // judging a lease expired
	ClassHandoff  Class = "handoff"  // the guard between two holders
	ClassDeadline Class = "deadline" // stopping generation in time
	ClassRelease  Class = "release"  // giving an ID back
	ClassState    Class = "state"    // the state file
	ClassConfig   Class = "config"   // what Start accepts
)

// Contested reports whether the contention soak provokes bugs of class c:
// claims, renewals, free predicates, expiry judgements and hand-off guards
// are contested on every fault when more workers share fewer IDs.
func (c Class) Contested() bool {
	switch c {
	case ClassClaim, ClassRenew, ClassFree, ClassExpiry, ClassHandoff:
		return true
	}
	return false
}
