package redislease

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
)

// An eviction policy is safe for a mode when eviction cannot reach its
// lease data: with maxmemory 0 or noeviction nothing is evicted; the
// volatile-* policies evict only keys with a TTL of their own, which key
// mode's {NAME}:<id> keys have and hash mode's hash NAME has not (its
// fields expire, the key does not). TestEviction shows the volatile-*
// policies sparing hash mode's leases on Redis 8 and Valkey 9, and every
// other policy and mode losing them. Any other or unknown policy is
// unsafe.
func safePolicy(mode Mode, maxmemory int64, policy string) bool {
	if maxmemory == 0 || policy == "noeviction" {
		return true
	}
	switch policy {
	case "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl":
		return mode == ModeHash
	}
	return false
}

// memoryInfo is what INFO memory says about eviction.
type memoryInfo struct {
	maxmemory int64
	policy    string
	ok        bool // both fields were present and well-formed
}

func parseMemoryInfo(info string) memoryInfo {
	var m memoryInfo
	var haveMax, havePolicy bool
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "maxmemory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			m.maxmemory, haveMax = n, err == nil && n >= 0
		} else if v, ok := strings.CutPrefix(line, "maxmemory_policy:"); ok {
			m.policy, havePolicy = v, plausible(v)
		}
	}
	m.ok = haveMax && havePolicy
	return m
}

// errUnreadable marks a server that does not tell its eviction policy.
var errUnreadable = errors.New("INFO memory does not report maxmemory and maxmemory_policy")

// checkEviction reads maxmemory and maxmemory-policy with INFO memory
// (CONFIG is disabled on several managed services; INFO rarely is), from
// every primary of a Redis Cluster and every shard of a Ring, and refuses
// a policy that can evict this mode's lease data. atStart (no lease held
// yet): an unsafe or unreadable policy is [driver.ErrConfig]. While a lease
// is held, an unsafe policy is [driver.ErrLost], so that the lease manager
// stops generation at once (ErrConfig would be retried until the lease's
// safe window ends, generating meanwhile on data that eviction may already
// have removed); a policy that cannot be read then is [driver.ErrRetry].
// [Options.AcceptUnverifiedEviction] lets an unreadable policy pass.
func (s *Strategy) checkEviction(ctx context.Context, atStart bool) error {
	read := func(ctx context.Context, c Client) error {
		info, err := c.Do(ctx, "INFO", "memory").Text()
		if err != nil {
			if isConfigReply(err) {
				return errors.Join(errUnreadable, err)
			}
			return s.classify(ctx, "eviction check (INFO memory)", err, false)
		}
		m := parseMemoryInfo(info)
		if !m.ok {
			return errUnreadable
		}
		if !safePolicy(s.opts.Mode, m.maxmemory, m.policy) {
			return s.unsafePolicy(m, atStart)
		}
		return nil
	}
	var err error
	switch c := s.c.(type) {
	case interface {
		ForEachMaster(context.Context, func(context.Context, *redis.Client) error) error
	}:
		err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return read(ctx, n) })
	case interface {
		ForEachShard(context.Context, func(context.Context, *redis.Client) error) error
	}:
		err = c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return read(ctx, n) })
	default:
		err = read(ctx, s.c)
	}
	if !errors.Is(err, errUnreadable) {
		return err
	}
	switch {
	case s.opts.AcceptUnverifiedEviction:
		return nil
	case atStart:
		return s.errorf(driver.ErrConfig, "cannot read the eviction policy (%w); if eviction cannot reach "+
			"lease data, set Options.AcceptUnverifiedEviction", err)
	}
	return s.errorf(driver.ErrRetry, "eviction check: %w", err)
}

// unsafePolicy names the setting that makes the server unsafe and its fix.
func (s *Strategy) unsafePolicy(m memoryInfo, atStart bool) error {
	sentinel, what := driver.ErrConfig, "refused"
	if !atStart {
		sentinel, what = driver.ErrLost, "lease given up"
	}
	fix := "set maxmemory-policy noeviction (or maxmemory 0)"
	if s.opts.Mode == ModeKey && strings.HasPrefix(m.policy, "volatile-") {
		fix += ", or use hash mode (Redis >= 8.0, Valkey >= 9.0), which a volatile-* policy cannot evict"
	}
	return s.errorf(sentinel, "%s: maxmemory-policy %s with maxmemory %d can evict held leases, and another "+
		"process would then acquire a machine ID in use; %s", what, m.policy, m.maxmemory, fix)
}
