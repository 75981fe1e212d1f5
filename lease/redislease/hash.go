package redislease

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease"
)

// Hash mode layout (exactly the Elixir library's): one hash NAME; a lease
// (id, token) is two fields written by one HSETEX with one TTL:
//
//	"<id>"                -> token
//	"token.<id>.<token>"  -> "<id>"
//
// acquire: HSETEX NAME FNX PX ttl  FIELDS 2 <id> <token> token.<id>.<token> <id>
// renew:   HSETEX NAME FXX PX ttl  FIELDS 2 <id> <token> token.<id>.<token> <id>
// release: HSETEX NAME FXX PX hold FIELDS 2 <id> <token> token.<id>.<token> <id>
//
// FNX sets only when neither field exists; FXX only when both do. The field
// "token.<id>.<token>" exists only while our own lease does (nobody else
// knows the token, and it carries the same expiry as "<id>"), so FXX
// succeeding proves ownership: after an expiry and a takeover "<id>" exists
// again but our token field does not, and FXX leaves the new holder alone.
// Release is the renewal with the TTL Options.ReleaseHold: both fields
// stay, with our token, for the hold, so the ID stays taken (an Elixir
// node sees it held that much longer) and then expires like any lease. A
// hold of 0 sends PX 0, which expires both fields at once (Redis 8 and
// Valkey 9 delete them and reply 1), which is what the Elixir library
// does on release.

func hashFields(id int, token string) []any {
	sid := strconv.Itoa(id)
	return []any{"FIELDS", 2, sid, token, "token." + sid + "." + token, sid}
}

func (s *Strategy) hsetex(cond string, ms int64, id int, token string) []any {
	args := []any{"HSETEX", s.opts.Name, cond, "PX", ms}
	return append(args, hashFields(id, token)...)
}

// hsetexTimed runs HSETEX together with TIME in one round trip and returns
// HSETEX's integer reply and the server time (zero if TIME failed). TIME
// runs after HSETEX, so an ID an acquire found free was free at that time
// (the hand-off guard counts on it).
func (s *Strategy) hsetexTimed(ctx context.Context, args []any) (int64, time.Time, error) {
	var tc *redis.TimeCmd
	var hc *redis.Cmd
	_, _ = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		hc = p.Do(ctx, args...)
		tc = p.Time(ctx)
		return nil
	})
	n, err := hc.Int64()
	if err != nil {
		return 0, time.Time{}, err
	}
	now, terr := tc.Result()
	if terr != nil {
		now = time.Time{}
	}
	return n, now, nil
}

func (s *Strategy) hashAcquire(ctx context.Context, ms int64) (lease.Lease, error) {
	var fields *redis.StringSliceCmd
	var other *redis.IntCmd
	_, _ = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		fields = p.HKeys(ctx, s.opts.Name)
		other = p.Exists(ctx, s.idKeys...)
		return nil
	})
	names, err := fields.Result()
	if err != nil {
		return lease.Lease{}, s.classify("acquire (HKEYS)", err, true)
	}
	n, err := other.Result()
	if err != nil {
		return lease.Lease{}, s.classify("acquire (EXISTS)", err, true)
	}
	if n > 0 {
		return lease.Lease{}, s.otherModeError()
	}
	free := freeIDs(names)
	if len(free) == 0 {
		return lease.Lease{}, fmt.Errorf("redislease: hash acquire on %q: all %d machine IDs held: %w",
			clip(s.opts.Name), Capacity, lease.ErrExhausted)
	}
	for _, id := range s.candidates(free) {
		token := newToken()
		ok, now, err := s.hsetexTimed(ctx, s.hsetex("FNX", ms, id, token))
		if err != nil {
			return lease.Lease{}, s.classify("acquire (HSETEX FNX)", err, true)
		}
		if ok == 1 {
			return lease.Lease{MachineID: id, Token: token, TTL: time.Duration(ms) * time.Millisecond, CoordinatorNow: now,
				ReleaseHold: s.releaseHold()}, nil
		}
	}
	return lease.Lease{}, fmt.Errorf("redislease: hash acquire on %q: %d free candidates taken by racing contenders: %w",
		clip(s.opts.Name), min(len(free), s.opts.Candidates), lease.ErrConflict)
}

func (s *Strategy) hashRenew(ctx context.Context, l lease.Lease, ms int64) (lease.Lease, error) {
	ok, now, err := s.hsetexTimed(ctx, s.hsetex("FXX", ms, l.MachineID, l.Token))
	if err != nil {
		return lease.Lease{}, s.classify(fmt.Sprintf("renew of ID %d (HSETEX FXX)", l.MachineID), err, false)
	}
	if ok != 1 {
		return lease.Lease{}, fmt.Errorf("redislease: hash renew of ID %d on %q: lease no longer held: %w",
			l.MachineID, clip(s.opts.Name), lease.ErrLost)
	}
	l.TTL = time.Duration(ms) * time.Millisecond
	l.CoordinatorNow = now
	l.PrevExpiry = time.Time{}
	l.ReleaseHold = s.releaseHold()
	return l, nil
}

func (s *Strategy) hashRelease(ctx context.Context, l lease.Lease, holdMS int64) error {
	// Reply 0 means the lease was no longer ours: nothing to do.
	if err := s.c.Do(ctx, s.hsetex("FXX", holdMS, l.MachineID, l.Token)...).Err(); err != nil {
		return s.classify(fmt.Sprintf("release of ID %d (HSETEX FXX PX %d)", l.MachineID, holdMS), err, false)
	}
	return nil
}

// freeIDs returns the IDs in 0..Capacity-1 with no "<id>" field. Field names
// that are not plain decimal IDs ("token.*", foreign fields) are ignored.
func freeIDs(names []string) []int {
	var held [Capacity]bool
	for _, f := range names {
		if id, ok := parseID(f); ok {
			held[id] = true
		}
	}
	free := make([]int, 0, Capacity)
	for id, h := range held {
		if !h {
			free = append(free, id)
		}
	}
	return free
}

// parseID accepts 1..3 decimal digits naming an ID below Capacity.
func parseID(f string) (int, bool) {
	if f == "" || len(f) > 3 {
		return 0, false
	}
	id := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int(c-'0')
	}
	return id, id < Capacity
}

// candidates picks up to Options.Candidates IDs from free (ascending): the
// lowest ones with LowestFirst, otherwise distinct ones chosen at random.
func (s *Strategy) candidates(free []int) []int {
	k := min(len(free), s.opts.Candidates)
	if s.opts.LowestFirst {
		return free[:k]
	}
	for i := range k { // partial Fisher-Yates
		j := i + mrand.IntN(len(free)-i)
		free[i], free[j] = free[j], free[i]
	}
	return free[:k]
}
