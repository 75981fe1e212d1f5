package redislease

import (
	"fmt"
	"strings"
	"time"

	"github.com/once-go/once/lease"
)

// DefaultName is the key (hash mode) or hash tag (key mode) used when
// [Options.Name] is empty. The Elixir library's hash mode uses the same
// default, so mixed fleets share it.
const DefaultName = "once_leases"

// DefaultCandidates is how many free machine IDs a hash-mode Acquire tries
// before it reports [lease.ErrConflict].
const DefaultCandidates = 5

// DefaultReleaseHold is how long a released machine ID stays taken when
// [Options.ReleaseHold] is zero: the lease manager's default
// lease.Options.HandoffSkew.
const DefaultReleaseHold = time.Second

// Capacity is the number of machine IDs a NAME holds (0..511).
const Capacity = 512

// maxNameLen bounds NAME so the 512 key names stay small.
const maxNameLen = 200

// Mode selects the data layout. There is no default: the zero value is
// rejected, because two layouts on one server would hand out an ID twice.
type Mode uint8

const (
	modeUnset Mode = iota
	// ModeHash keeps every lease in one hash NAME with per-field TTLs
	// (HSETEX). Needs Redis >= 8.0 or Valkey >= 9.0. Compatible with the
	// Elixir library's layout.
	ModeHash
	// ModeKey keeps one key {NAME}:<id> per lease, value = token, with a
	// key TTL; acquire/renew/release are Lua scripts. Works on any Redis >= 6,
	// Valkey and Redis Cluster (all keys share one hash slot).
	ModeKey
)

// String returns "hash", "key" or "unset".
func (m Mode) String() string {
	switch m {
	case ModeHash:
		return "hash"
	case ModeKey:
		return "key"
	}
	return "unset"
}

// ParseMode parses "hash" or "key" (as a CLI flag would spell them).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "hash":
		return ModeHash, nil
	case "key":
		return ModeKey, nil
	}
	return modeUnset, fmt.Errorf("redislease: mode %q is not \"hash\" or \"key\": %w", clip(s), lease.ErrConfig)
}

// Options configures a [Strategy].
type Options struct {
	// Mode is required: ModeHash or ModeKey. There is no automatic choice.
	Mode Mode
	// Name is the hash key (hash mode) or the hash tag of the per-ID keys
	// {Name}:<id> (key mode). Default [DefaultName]. It must not contain
	// '{' or '}' (they would break the single hash slot).
	Name string
	// Candidates is how many free IDs a hash-mode Acquire tries, one HSETEX
	// each, before it gives up with [lease.ErrConflict]. Default
	// [DefaultCandidates]. Key mode claims atomically and never conflicts.
	Candidates int
	// LowestFirst makes Acquire take the lowest free IDs. By default hash mode
	// picks its candidates at random among the free IDs and key mode scans
	// from a random offset, which spreads boot-time contenders apart.
	LowestFirst bool
	// ReleaseHold is how long a machine ID stays taken after Release:
	// instead of deleting the lease, Release shortens it to ReleaseHold
	// (whole milliseconds, rounded up), so that nobody can acquire the ID
	// before that much time has passed since its holder stopped. Leases
	// report it as lease.Lease.ReleaseHold, and the lease manager's
	// hand-off guard relies on it: Redis cannot tell a released ID from an
	// expired one, and a new holder starts its timestamps after
	// CoordinatorNow + HandoffSkew - min(safety margin, ReleaseHold). Keep
	// it at least lease.Options.HandoffSkew for hand-offs without a wait.
	// Default [DefaultReleaseHold] (1s). Negative: Release deletes the
	// lease at once (ReleaseHold 0), and every Acquire's first timestamp
	// waits about HandoffSkew. Every holder sharing NAME must use the same
	// value (see the package documentation).
	ReleaseHold time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.Mode != ModeHash && o.Mode != ModeKey {
		return o, fmt.Errorf("redislease: Options.Mode must be ModeHash or ModeKey (got %d): %w", o.Mode, lease.ErrConfig)
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if len(o.Name) > maxNameLen || strings.ContainsAny(o.Name, "{}") || !printable(o.Name) {
		return o, fmt.Errorf("redislease: Options.Name %q must be 1..%d printable bytes without '{' or '}': %w",
			clip(o.Name), maxNameLen, lease.ErrConfig)
	}
	if o.Candidates < 0 {
		return o, fmt.Errorf("redislease: Options.Candidates %d is negative: %w", o.Candidates, lease.ErrConfig)
	}
	if o.Candidates == 0 {
		o.Candidates = DefaultCandidates
	}
	if o.ReleaseHold == 0 {
		o.ReleaseHold = DefaultReleaseHold
	}
	return o, nil
}

// holdMillis is the hold Release applies, in whole milliseconds (rounded
// up; 0 for a negative ReleaseHold: delete at once).
func (o Options) holdMillis() int64 {
	if o.ReleaseHold <= 0 {
		return 0
	}
	return int64((o.ReleaseHold-1)/time.Millisecond) + 1
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// clip shortens untrusted input quoted in an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
