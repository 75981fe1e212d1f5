package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

var _ driver.Lister = (*Strategy)(nil)

// List returns the machine IDs held under NAME, ascending, read in one
// script (one atomic step, on the node that owns NAME's hash slot): in
// hash mode the fields "<id>" of the hash NAME, in key mode the keys
// {NAME}:<id>. Each [driver.Slot] has the remaining TTL the server reports
// (HPTTL, PTTL; 0 for a lease without a TTL, which this package never
// writes), the holder recorded in the lease's value ("" for a lease of
// the Elixir library or of a holder that recorded none), the key
// fingerprint recorded before it (Slot.Fingerprint, "" when none), and the whole
// value as Token: Release(ctx, driver.Lease{MachineID: s.MachineID,
// Token: s.Token}) releases exactly that lease, an Elixir holder's too,
// and leaves a later holder's alone.
//
// List runs no server check and holds nothing. Errors wrap
// [driver.ErrRetry] (transport, timeout) or [driver.ErrConfig] (a server
// without the mode's commands, NAME of another type).
func (s *Strategy) List(ctx context.Context) ([]driver.Slot, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.errorf(driver.ErrRetry, "list: %w", context.Cause(ctx))
	}
	script, keys, args := listScript, s.idKeys, []any(nil)
	if s.opts.Mode == ModeHash {
		script, keys, args = hashListScript, s.keys[:1], []any{Capacity}
	}
	r, err := script.Run(ctx, s.c, keys, args...).Slice()
	if err != nil {
		return nil, s.classify(ctx, "list (script)", err, true)
	}
	slots, err := parseList(r)
	if err != nil {
		return nil, s.classify(ctx, "list (script)", err, false)
	}
	return slots, nil
}

// parseList decodes the list scripts' {id, value, pttl, ...}.
func parseList(r []any) ([]driver.Slot, error) {
	if len(r)%3 != 0 {
		return nil, fmt.Errorf("unexpected list reply of %d elements", len(r))
	}
	slots := make([]driver.Slot, 0, len(r)/3)
	for i := 0; i < len(r); i += 3 {
		id, ok1 := r[i].(int64)
		v, ok2 := r[i+1].(string)
		ms, ok3 := r[i+2].(int64)
		if !ok1 || !ok2 || !ok3 || !leasekit.ValidID(int(id)) || (len(slots) > 0 && int(id) <= slots[len(slots)-1].MachineID) {
			return nil, fmt.Errorf("unexpected list reply at element %d", i)
		}
		holder, fp := leasekit.SplitKey(leasekit.HolderOf(v))
		slots = append(slots, driver.Slot{MachineID: int(id), TTL: time.Duration(max(ms, 0)) * time.Millisecond,
			Holder: holder, Fingerprint: fp, Token: v})
	}
	return slots, nil
}
