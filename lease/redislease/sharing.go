package redislease

// ElixirName is the Elixir library's default hash name. With the default
// [Options.Sharing] a hash-mode NAME spelt so counts as shared with it.
const ElixirName = "no_noncense_leases"

// Sharing says whether NAME is shared with the Elixir library (see
// [Options.Sharing]).
type Sharing int

const (
	// SharedByName treats a hash-mode NAME as shared when it is
	// [ElixirName], the Elixir library's default.
	SharedByName Sharing = iota
	// SharedWithElixir treats NAME as shared whatever it is spelt. Hash
	// mode only: the Elixir library has no key mode.
	SharedWithElixir
	// GoOnly treats NAME as used by this package only.
	GoOnly
)

// shared reports whether NAME counts as shared with the Elixir library.
func (o Options) shared() bool {
	switch o.Sharing {
	case SharedWithElixir:
		return true
	case GoOnly:
		return false
	}
	return o.Mode == ModeHash && o.Name == ElixirName
}
