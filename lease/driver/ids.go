package driver

import "strconv"

// IDRange is the machine IDs Min through Max, both included. A strategy
// that chooses IDs (sqllease, redislease, etcdlease, k8slease) takes one
// as Options.MachineIDs and then acquires and claims only IDs in it, so
// that regions or services sharing one table or key space can split the
// 512 IDs between them, and tests can make contenders outnumber the IDs.
//
// A range must lie within 0..511 and hold at least one ID (Min <= Max);
// a strategy refuses any other with [ErrConfig].
type IDRange struct {
	Min, Max int
}

// AllIDs returns the range of every machine ID, 0..511: what a strategy
// uses when Options.MachineIDs is nil.
func AllIDs() IDRange { return IDRange{Min: 0, Max: maxID} }

// maxID is the largest machine ID (nonce.MaxMachineID).
const maxID = 511

// Valid reports whether r lies within 0..511 and holds at least one ID.
func (r IDRange) Valid() bool { return 0 <= r.Min && r.Min <= r.Max && r.Max <= maxID }

// Len returns how many IDs r holds (0 for an empty range).
func (r IDRange) Len() int { return max(r.Max-r.Min+1, 0) }

// Contains reports whether id is in r.
func (r IDRange) Contains(id int) bool { return r.Min <= id && id <= r.Max }

// String returns r as "Min..Max".
func (r IDRange) String() string { return strconv.Itoa(r.Min) + ".." + strconv.Itoa(r.Max) }

// Ranged is an optional capability of a [Strategy]: the machine IDs it
// may hand out. The manager counts free IDs within that range when it
// reports the pool ([Lister]).
type Ranged interface {
	// MachineIDs returns the range of IDs Acquire chooses from.
	MachineIDs() IDRange
}
