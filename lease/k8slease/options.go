package k8slease

import (
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// DefaultPrefix is the name prefix used when [Options.Prefix] is empty:
// machine ID 17 is the Lease "once-leases-17".
const DefaultPrefix = "once-leases"

// DefaultCandidates is how many free machine IDs of one look at the pool
// an Acquire tries, one request each, before it looks again.
const DefaultCandidates = 5

// DefaultRequestTimeout bounds each API request when
// [Options.RequestTimeout] is zero.
const DefaultRequestTimeout = 5 * time.Second

// Manager settings suited to Kubernetes, for lease.Options.LeaseDuration,
// RenewInterval and AcquireTimeout (the manager's own defaults, 8h, 30m
// and 60s, suit a coordinator with a clock).
//
// The API server keeps no clock for a Lease: a holder that dies without
// releasing (SIGKILL, OOM kill, node loss) keeps its machine ID until a
// contender has watched its record stay unchanged for the whole recorded
// duration. With 8 hours, a Deployment whose pods crash-loop would drain
// the pool. A one-minute lease frees a dead pod's ID a minute after a
// contender first looks. The manager renews it every 20s (a safety margin
// of 10s before the 30s interval) and trusts it for 50s from each
// renewal's request, so the API server may be unreachable for 30s after a
// renewal falls due before the factories stop. 512 holders write about 26
// renewals a second, far below what an API server takes (every node's
// kubelet renews its own Lease every 10s).
//
// A process that starts while every ID is held must watch the records for
// a whole LeaseDuration before it can take a dead holder's ID; the
// manager's backoff retries about 26s, 52s and 105s after its first look,
// so its acquire timeout must cover about 1.8 x LeaseDuration: 2 minutes.
// With the manager's 60s default such a process would give up (and, in a
// crash loop, start watching afresh each time).
const (
	LeaseDuration  = time.Minute
	RenewInterval  = 30 * time.Second
	AcquireTimeout = 2 * time.Minute
)

// Capacity is the number of machine IDs (0..511).
const Capacity = leasekit.IDs

// maxPrefixLen keeps "<prefix>-<id>" a DNS label (63 bytes) and the prefix
// a valid label value.
const maxPrefixLen = 59

// Options configures a [Strategy].
type Options struct {
	// Namespace is where the Lease objects live. Required by [New]; [Open]
	// takes the namespace of the kubeconfig's current context (in-cluster:
	// the pod's own) when it is empty.
	Namespace string
	// Prefix names the Lease of each machine ID: "<prefix>-<id>", such as
	// "once-leases-17". Default [DefaultPrefix]. It must be a DNS label of
	// at most 59 bytes (lowercase letters, digits and '-', starting and
	// ending with a letter or digit). Every Lease also carries the label
	// once-go.github.io/pool=<prefix>, by which the strategy lists them.
	Prefix string
	// Holder says who holds a lease; it is recorded, with a random token,
	// as the Lease's holderIdentity, after the lease manager's key
	// fingerprint (driver.KeyFingerprint): "key=<fingerprint> <holder>/<token>". Default leasekit's "host/pid": in a
	// pod, the pod's name (its hostname) and the process ID.
	Holder string
	// Candidates is how many free IDs of one look at the pool an Acquire
	// tries, while contenders take them first, before it looks again.
	// Acquire keeps going until it wins an ID or a look finds none free.
	// Default [DefaultCandidates].
	Candidates int
	// LowestFirst makes Acquire try the lowest free IDs. By default it
	// picks its candidates at random among the free IDs, which spreads
	// contenders that start together (a rollout) apart.
	LowestFirst bool
	// MachineIDs restricts the machine IDs Acquire and Claim take to a
	// range ([driver.IDRange]): processes that share the namespace and prefix with
	// others of another range (regions, services) never take their IDs.
	// Nil: every ID, 0..511. A range outside 0..511 or with Min > Max is
	// refused with driver.ErrConfig.
	MachineIDs *driver.IDRange
	// RequestTimeout bounds every API request (a call's context bounds it
	// too). Default [DefaultRequestTimeout]; negative: only the context.
	RequestTimeout time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if !dnsLabel(o.Prefix, maxPrefixLen) {
		return o, leasekit.Errorf("k8slease", driver.ErrConfig,
			"Options.Prefix %s must be a DNS label of at most %d bytes (lowercase letters, digits and '-', starting and ending with a letter or digit)",
			leasekit.Quote(o.Prefix), maxPrefixLen)
	}
	if o.Namespace == "" {
		return o, leasekit.Errorf("k8slease", driver.ErrConfig, "Options.Namespace is empty: name the namespace of the Lease objects (Open takes it from the kubeconfig)")
	}
	if !dnsLabel(o.Namespace, 63) {
		return o, leasekit.Errorf("k8slease", driver.ErrConfig, "Options.Namespace %s is not a namespace name (a DNS label)", leasekit.Quote(o.Namespace))
	}
	if o.Holder == "" {
		o.Holder = leasekit.Holder()
	}
	o.Holder = leasekit.CleanHolder(o.Holder)
	switch {
	case o.Candidates < 0:
		return o, leasekit.Errorf("k8slease", driver.ErrConfig, "Options.Candidates %d is negative", o.Candidates)
	case o.Candidates == 0:
		o.Candidates = DefaultCandidates
	}
	ids, err := leasekit.MachineIDs("k8slease", o.MachineIDs)
	if err != nil {
		return o, err
	}
	o.MachineIDs = &ids
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	return o, nil
}

// dnsLabel reports whether s is a DNS label (RFC 1123) of at most max
// bytes.
func dnsLabel(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}
