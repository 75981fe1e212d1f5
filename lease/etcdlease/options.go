package etcdlease

import (
	"fmt"
	"time"

	"github.com/once-go/once/lease"
)

// DefaultPrefix is the key prefix used when [Options.Prefix] is empty.
const DefaultPrefix = "once_leases/"

// DefaultCandidates is how many free machine IDs an Acquire tries, one
// transaction each, before it reports [lease.ErrConflict].
const DefaultCandidates = 5

// DefaultRequestTimeout bounds each etcd request when
// [Options.RequestTimeout] is zero.
const DefaultRequestTimeout = 5 * time.Second

// Capacity is the number of machine IDs under a prefix (0..511).
const Capacity = 512

// maxTTLSeconds is etcd's largest lease TTL (MaxLeaseTTL).
const maxTTLSeconds = 9_000_000_000

// maxPrefixLen bounds the prefix so keys stay small.
const maxPrefixLen = 200

// Options configures a [Strategy].
type Options struct {
	// Prefix is prepended to the decimal machine ID to form each key:
	// "once_leases/17". Default [DefaultPrefix]. It must not end with a
	// digit (prefixes "a" and "a1" would share the key "a17").
	Prefix string
	// Candidates is how many free IDs an Acquire tries before it gives up
	// with [lease.ErrConflict]. Default [DefaultCandidates].
	Candidates int
	// LowestFirst makes Acquire try the lowest free IDs. By default it
	// picks its candidates at random among the free IDs, which spreads
	// boot-time contenders apart.
	LowestFirst bool
	// RequestTimeout bounds every etcd request (a call's context bounds it
	// too). Default [DefaultRequestTimeout]; negative: only the context.
	RequestTimeout time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if len(o.Prefix) > maxPrefixLen || !printable(o.Prefix) {
		return o, fmt.Errorf("etcdlease: Options.Prefix %q must be 1..%d printable bytes: %w", clip(o.Prefix), maxPrefixLen, lease.ErrConfig)
	}
	if last := o.Prefix[len(o.Prefix)-1]; '0' <= last && last <= '9' {
		return o, fmt.Errorf("etcdlease: Options.Prefix %q must not end with a digit (end it with a separator such as '/'): %w",
			clip(o.Prefix), lease.ErrConfig)
	}
	switch {
	case o.Candidates < 0:
		return o, fmt.Errorf("etcdlease: Options.Candidates %d is negative: %w", o.Candidates, lease.ErrConfig)
	case o.Candidates == 0:
		o.Candidates = DefaultCandidates
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	return o, nil
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
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
