package hostlease

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Config configures a host-list strategy.
type Config struct {
	// Hosts lists every host of the fleet by hostname or IP address.
	Hosts []string
	// Identifiers returns this host's hostnames and addresses. Nil means
	// os.Hostname and the addresses of net.InterfaceAddrs. Tests inject
	// their own.
	Identifiers func() ([]string, error)
}

// Strategy takes the machine ID from this host's place in a fixed list.
type Strategy struct {
	hosts []string
	ids   func() ([]string, error)
}

var _ lease.Strategy = (*Strategy)(nil)

// New returns a host-list strategy. The list is checked, and this host
// looked up, on every Acquire.
func New(cfg Config) *Strategy {
	ids := cfg.Identifiers
	if ids == nil {
		ids = systemIdentifiers
	}
	return &Strategy{hosts: slices.Clone(cfg.Hosts), ids: ids}
}

// Name returns "host".
func (s *Strategy) Name() string { return "host" }

// Deterministic returns true.
func (s *Strategy) Deterministic() bool { return true }

// MachineID returns this host's index in the sorted list.
func (s *Strategy) MachineID() (int, error) {
	list, err := normaliseList(s.hosts)
	if err != nil {
		return 0, err
	}
	ids, err := s.ids()
	if err != nil {
		return 0, configError("cannot list this host's names and addresses: %v", err)
	}
	var mine []string
	seen := map[string]bool{}
	for _, raw := range ids {
		id, ok := normalise(raw)
		if !ok || neverMatches(id) || seen[id] {
			continue
		}
		seen[id] = true
		mine = append(mine, id)
	}
	match, matchedBy := -1, ""
	for _, id := range mine {
		i, found := slices.BinarySearch(list, id)
		if !found {
			continue
		}
		if match >= 0 && i != match {
			return 0, configError("this host is listed twice, as %s and %s; list each host once", quote(matchedBy), quote(id))
		}
		match, matchedBy = i, id
	}
	if match < 0 {
		return 0, configError("none of this host's identifiers (%s) is in the host list of %d entries", clipList(mine), len(list))
	}
	return match, nil
}

// Acquire returns this host's machine ID, for d.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (lease.Lease, error) {
	if err := ctx.Err(); err != nil {
		return lease.Lease{}, fmt.Errorf("hostlease: %w: %w", lease.ErrRetry, err)
	}
	id, err := s.MachineID()
	if err != nil {
		return lease.Lease{}, err
	}
	return lease.Lease{MachineID: id, Token: "host:" + strconv.Itoa(id), TTL: d}, nil
}

// Renew returns l for d: nothing can take the ID away.
func (s *Strategy) Renew(ctx context.Context, l lease.Lease, d time.Duration) (lease.Lease, error) {
	if err := ctx.Err(); err != nil {
		return lease.Lease{}, fmt.Errorf("hostlease: %w: %w", lease.ErrRetry, err)
	}
	l.TTL = d
	return l, nil
}

// Release does nothing.
func (s *Strategy) Release(context.Context, lease.Lease) error { return nil }

// normaliseList normalises, sorts and checks the host list.
func normaliseList(hosts []string) ([]string, error) {
	if len(hosts) == 0 {
		return nil, configError("the host list is empty")
	}
	if len(hosts) > leasekit.IDs {
		return nil, configError("the host list has %d entries; at most %d machine IDs exist", len(hosts), leasekit.IDs)
	}
	list := make([]string, 0, len(hosts))
	for i, raw := range hosts {
		h, ok := normalise(raw)
		if !ok {
			return nil, configError("host list entry %d, %s, is neither a hostname nor an IP address", i, quote(raw))
		}
		list = append(list, h)
	}
	slices.Sort(list)
	for i := 1; i < len(list); i++ {
		if list[i] == list[i-1] {
			return nil, configError("the host list names %s twice", quote(list[i]))
		}
	}
	return list, nil
}

// normalise returns the canonical form of a hostname or address.
func normalise(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return a.Unmap().WithZone("").String(), true
	}
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if s == "" || len(s) > 253 {
		return "", false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return s, true
}

// neverMatches reports identifiers every host has.
func neverMatches(id string) bool {
	if a, err := netip.ParseAddr(id); err == nil {
		return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified()
	}
	return id == "localhost" || strings.HasSuffix(id, ".localhost")
}

// systemIdentifiers returns the hostname and interface addresses.
func systemIdentifiers() ([]string, error) {
	var ids []string
	if h, err := os.Hostname(); err == nil {
		ids = append(ids, h)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ids, err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ids = append(ids, n.IP.String())
		}
	}
	return ids, nil
}

func configError(format string, args ...any) error {
	return fmt.Errorf("hostlease: "+format+" (%w)", append(args, lease.ErrConfig)...)
}

// quote quotes at most 40 bytes of s.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

// clipList lists identifiers for a message, at most about 120 bytes.
func clipList(ids []string) string {
	if len(ids) == 0 {
		return "none besides loopback and link-local"
	}
	var b strings.Builder
	for i, id := range ids {
		if b.Len() > 120 {
			fmt.Fprintf(&b, ", and %d more", len(ids)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(id))
	}
	return b.String()
}
