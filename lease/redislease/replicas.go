package redislease

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
)

// masterForKey is the part of *redis.ClusterClient that names the node
// owning a key's slot; stateReloader lets a failed call refresh its slot
// map.
type (
	masterForKey interface {
		MasterForKey(ctx context.Context, key string) (*redis.Client, error)
	}
	stateReloader interface{ ReloadState(ctx context.Context) }
)

// checkWaitClient refuses Options.WaitReplicas on a client whose WAIT the
// strategy cannot send on the connection that carried the write: WAIT
// counts the acknowledgements of that connection's writes, and has no key
// to route it by. A *redis.Client sends the script and WAIT on one of its
// connections; a *redis.ClusterClient (anything with MasterForKey) on one
// connection to the master of NAME's slot.
func checkWaitClient(c Client) error {
	if _, ok := c.(masterForKey); ok {
		return nil
	}
	if _, ok := c.(*redis.Client); ok {
		return nil
	}
	return fmt.Errorf("Options.WaitReplicas needs a *redis.Client or *redis.ClusterClient, not a %T "+
		"(WAIT must follow the write on its own connection)", c)
}

// run runs sc. With Options.WaitReplicas it runs the script on one
// connection to the master of NAME's slot and, when wrote says from the
// reply that the script wrote, sends WAIT WaitReplicas WaitTimeout on the
// same connection (WAIT counts the acknowledgements of that connection's
// writes); ackErr reports fewer acknowledgements than asked for (err is
// then nil and r the script's reply).
func (s *Strategy) run(ctx context.Context, sc *redis.Script, wrote func([]any) bool, keys []string, args ...any) (r []any, ackErr, err error) {
	if s.opts.WaitReplicas == 0 {
		r, err = sc.Run(ctx, s.c, keys, args...).Slice()
		return r, nil, err
	}
	node, err := s.master(ctx)
	if err != nil {
		return nil, nil, err
	}
	conn := node.Conn()
	defer conn.Close()
	// Run falls back to EVAL on a master that never loaded the script (a
	// replica promoted by a failover: the script cache is not replicated).
	if r, err = sc.Run(ctx, conn, keys, args...).Slice(); err != nil {
		s.reload(ctx)
		return nil, nil, err
	}
	if !wrote(r) {
		return r, nil, nil
	}
	n, err := conn.Do(ctx, "WAIT", s.opts.WaitReplicas, s.opts.WaitTimeout.Milliseconds()).Int64()
	switch {
	case err != nil:
		return r, fmt.Errorf("WAIT %d %d: %w", s.opts.WaitReplicas, s.opts.WaitTimeout.Milliseconds(), err), nil
	case n < int64(s.opts.WaitReplicas):
		return r, fmt.Errorf("%d of Options.WaitReplicas %d replicas acknowledged the write within %v",
			n, s.opts.WaitReplicas, s.opts.WaitTimeout), nil
	}
	return r, nil, nil
}

// firstIs returns run's wrote for a script whose first reply element is
// v when it wrote.
func firstIs(v int64) func([]any) bool {
	return func(r []any) bool {
		if len(r) == 0 {
			return false
		}
		n, ok := r[0].(int64)
		return ok && n == v
	}
}

// master returns the client of the node that owns NAME's slot: the
// cluster's master for NAME, or the client itself.
func (s *Strategy) master(ctx context.Context) (*redis.Client, error) {
	if m, ok := s.c.(masterForKey); ok {
		n, err := m.MasterForKey(ctx, s.opts.Name)
		if err != nil {
			s.reload(ctx)
		}
		return n, err
	}
	return s.c.(*redis.Client), nil
}

// reload asks a cluster client to refresh its slot map after a failed
// call on a node (a failover may have moved NAME's slot).
func (s *Strategy) reload(ctx context.Context) {
	if r, ok := s.c.(stateReloader); ok {
		r.ReloadState(ctx)
	}
}

// checkReplicas reads INFO replication on the master of NAME's slot and
// refuses a master with more replicas than Options.WaitReplicas: a
// failover to a replica that missed the latest claim or renewal frees a
// machine ID in use (see the package documentation). A master whose
// replicas cannot be read is refused too. Options.AcceptReplicaLoss skips
// the check.
func (s *Strategy) checkReplicas(ctx context.Context) error {
	if s.opts.AcceptReplicaLoss {
		return nil
	}
	node := Client(s.c)
	if m, ok := s.c.(masterForKey); ok {
		n, err := m.MasterForKey(ctx, s.opts.Name)
		if err != nil {
			s.reload(ctx)
			return s.classify(ctx, "check (replicas of NAME's master)", err, true)
		}
		node = n
	}
	info, err := node.Do(ctx, "INFO", "replication").Text()
	if err != nil && !isConfigReply(err) {
		return s.classify(ctx, "check (INFO replication)", err, true)
	}
	n, ok := connectedReplicas(info)
	switch {
	case err != nil || !ok:
		return s.errorf(driver.ErrConfig, "cannot read the replicas of NAME's master (INFO replication%s); "+
			"if it has none, or losing the latest claims and renewals in a failover is acceptable, set Options.AcceptReplicaLoss",
			errSuffix(err))
	case n > s.opts.WaitReplicas:
		return s.errorf(driver.ErrConfig, "refused: NAME's master has %d connected replicas and Options.WaitReplicas is %d: "+
			"a failover to a replica that missed the latest claim or renewal frees a machine ID in use; "+
			"set Options.WaitReplicas to %d (every claim and renewal then waits for their acknowledgement), "+
			"or Options.AcceptReplicaLoss", n, s.opts.WaitReplicas, n)
	}
	return nil
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// connectedReplicas reads connected_slaves from INFO replication.
func connectedReplicas(info string) (int, bool) {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "connected_slaves:"); ok {
			n, err := strconv.Atoi(v)
			return n, err == nil && n >= 0
		}
	}
	return 0, false
}
