package redislease

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease"
)

// Key mode layout: one string key per machine ID, "{NAME}:<id>" = token,
// with a PX expiry. The hash tag {NAME} puts all 512 keys, and the key NAME
// itself, in one hash slot, and every script declares every key it touches
// in KEYS, so the scripts are Redis Cluster correct.

var (
	//go:embed scripts/acquire.lua
	acquireLua    string
	acquireScript = redis.NewScript(acquireLua)

	//go:embed scripts/renew.lua
	renewLua    string
	renewScript = redis.NewScript(renewLua)

	//go:embed scripts/release.lua
	releaseLua    string
	releaseScript = redis.NewScript(releaseLua)
)

func (s *Strategy) keyAcquire(ctx context.Context, ms int64) (lease.Lease, error) {
	token := newToken()
	r, err := acquireScript.Run(ctx, s.c, s.keys, s.startOffset(), token, ms).Slice()
	if err != nil {
		return lease.Lease{}, s.classify("acquire (script)", err, true)
	}
	id, now, err := scriptReply(r)
	if err != nil {
		return lease.Lease{}, s.classify("acquire (script)", err, false)
	}
	switch {
	case id == -1:
		return lease.Lease{}, fmt.Errorf("redislease: key acquire on %q: all %d machine IDs held: %w",
			clip(s.opts.Name), Capacity, lease.ErrExhausted)
	case id == -2:
		return lease.Lease{}, s.otherModeError()
	case id < 0 || id >= Capacity:
		return lease.Lease{}, s.classify("acquire (script)", fmt.Errorf("unexpected reply %d", id), false)
	}
	return lease.Lease{MachineID: int(id), Token: token, TTL: time.Duration(ms) * time.Millisecond, CoordinatorNow: now,
		ReleaseHold: s.releaseHold()}, nil
}

func (s *Strategy) keyRenew(ctx context.Context, l lease.Lease, ms int64) (lease.Lease, error) {
	r, err := renewScript.Run(ctx, s.c, []string{s.idKeys[l.MachineID]}, l.Token, ms).Slice()
	if err == nil {
		var ok int64
		var now time.Time
		if ok, now, err = scriptReply(r); err == nil {
			if ok != 1 {
				return lease.Lease{}, fmt.Errorf("redislease: key renew of ID %d on %q: lease no longer held: %w",
					l.MachineID, clip(s.opts.Name), lease.ErrLost)
			}
			l.TTL = time.Duration(ms) * time.Millisecond
			l.CoordinatorNow = now
			l.PrevExpiry = time.Time{}
			l.ReleaseHold = s.releaseHold()
			return l, nil
		}
	}
	return lease.Lease{}, s.classify(fmt.Sprintf("renew of ID %d (script)", l.MachineID), err, false)
}

// keyRelease shortens l's key to holdMS milliseconds (deletes it when
// holdMS is 0) if it still holds l's token.
func (s *Strategy) keyRelease(ctx context.Context, l lease.Lease, holdMS int64) error {
	// Reply 0 means the lease was no longer ours: nothing to do.
	if err := releaseScript.Run(ctx, s.c, []string{s.idKeys[l.MachineID]}, l.Token, holdMS).Err(); err != nil {
		return s.classify(fmt.Sprintf("release of ID %d (script)", l.MachineID), err, false)
	}
	return nil
}

// scriptReply decodes {n, time_s, time_us}.
func scriptReply(r []any) (int64, time.Time, error) {
	if len(r) != 3 {
		return 0, time.Time{}, fmt.Errorf("unexpected script reply of %d elements", len(r))
	}
	n, ok := r[0].(int64)
	if !ok {
		return 0, time.Time{}, fmt.Errorf("unexpected script reply type %T", r[0])
	}
	return n, serverTime(r[1], r[2]), nil
}

// serverTime turns TIME's two strings into a time; zero if malformed.
func serverTime(sec, usec any) time.Time {
	ss, ok1 := sec.(string)
	us, ok2 := usec.(string)
	if !ok1 || !ok2 {
		return time.Time{}
	}
	s, err1 := strconv.ParseInt(ss, 10, 64)
	u, err2 := strconv.ParseInt(us, 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}
	}
	return time.Unix(s, u*1000)
}
