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

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Config configures a host-list strategy.
type Config struct {
	// Hosts lists every host of the fleet by hostname or IP address,
	// either each with its machine ID ("web-1.example=3", see the package
	// documentation: adding or removing a host changes no other host's ID)
	// or every entry plain ("web-1.example": the ID is the index in the
	// sorted list, which shifts when the list changes). A list that mixes
	// the two forms is refused.
	Hosts []string
	// Identifiers returns this host's hostnames and addresses. Nil means
	// os.Hostname and the addresses of net.InterfaceAddrs. Tests inject
	// their own.
	Identifiers func() ([]string, error)
}

// Strategy takes the machine ID from this host's entry in a fixed list.
type Strategy struct {
	hosts []string
	ids   func() ([]string, error)
}

var _ driver.Strategy = (*Strategy)(nil)

// New returns a host-list strategy. The list is checked, and this host
// looked up, on every Acquire (errors wrap [driver.ErrConfig]).
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

// MachineID returns this host's machine ID: the ID of its entry in a
// list of host=ID entries, or its index in the sorted plain list.
func (s *Strategy) MachineID() (int, error) {
	list, err := parseList(s.hosts)
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
		i, found := slices.BinarySearchFunc(list, id, func(e entry, id string) int { return strings.Compare(e.host, id) })
		if !found {
			continue
		}
		if match >= 0 && list[i].id != match {
			return 0, configError("this host is listed twice, as %s and %s; list each host once", quote(matchedBy), quote(id))
		}
		match, matchedBy = list[i].id, id
	}
	if match < 0 {
		return 0, configError("none of this host's identifiers (%s) is in the host list of %d entries", clipList(mine), len(list))
	}
	return match, nil
}

// Acquire returns this host's machine ID, for d.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	if err := ctx.Err(); err != nil {
		return driver.Lease{}, fmt.Errorf("hostlease: %w: %w", driver.ErrRetry, err)
	}
	id, err := s.MachineID()
	if err != nil {
		return driver.Lease{}, err
	}
	return driver.Lease{MachineID: id, Token: "host:" + strconv.Itoa(id), TTL: d}, nil
}

// Renew returns l for d: nothing can take the ID away.
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	if err := ctx.Err(); err != nil {
		return driver.Lease{}, fmt.Errorf("hostlease: %w: %w", driver.ErrRetry, err)
	}
	l.TTL = d
	return l, nil
}

// Release does nothing.
func (s *Strategy) Release(context.Context, driver.Lease) error { return nil }

// entry is one host of the list with its machine ID.
type entry struct {
	host string // normalised
	id   int
}

// parseList normalises and checks the host list and returns its entries
// sorted by host. Entries of the form host=ID keep their ID; a list of
// plain entries numbers them by their place in the sorted list.
func parseList(hosts []string) ([]entry, error) {
	if len(hosts) == 0 {
		return nil, configError("the host list is empty")
	}
	if len(hosts) > leasekit.IDs {
		return nil, configError("the host list has %d entries; at most %d machine IDs exist", len(hosts), leasekit.IDs)
	}
	list := make([]entry, 0, len(hosts))
	explicit := -1 // index of the first host=ID entry
	plain := -1    // index of the first plain entry
	owner := map[int]string{}
	for i, raw := range hosts {
		name, idText, hasID := strings.Cut(raw, "=")
		h, ok := normalise(name)
		if !ok {
			return nil, configError("host list entry %d, %s, is neither a hostname nor an IP address", i, quote(raw))
		}
		e := entry{host: h, id: -1}
		if hasID {
			if explicit < 0 {
				explicit = i
			}
			id, ok := leasekit.ParseID(strings.TrimSpace(idText))
			if !ok {
				return nil, configError("host list entry %d, %s: the machine ID after '=' must be 0..%d in decimal",
					i, quote(raw), leasekit.IDs-1)
			}
			if prev, dup := owner[id]; dup {
				return nil, configError("the host list gives machine ID %d to both %s and %s", id, quote(prev), quote(h))
			}
			owner[id], e.id = h, id
		} else if plain < 0 {
			plain = i
		}
		list = append(list, e)
	}
	if explicit >= 0 && plain >= 0 {
		return nil, configError("the host list mixes host=ID entries (entry %d, %s) with plain ones (entry %d, %s); "+
			"give every host its ID", explicit, quote(hosts[explicit]), plain, quote(hosts[plain]))
	}
	slices.SortFunc(list, func(a, b entry) int { return strings.Compare(a.host, b.host) })
	for i := range list {
		if i > 0 && list[i].host == list[i-1].host {
			return nil, configError("the host list names %s twice", quote(list[i].host))
		}
		if plain >= 0 {
			list[i].id = i
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
	return fmt.Errorf("hostlease: "+format+" (%w)", append(args, driver.ErrConfig)...)
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
