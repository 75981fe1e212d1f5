package soakrun

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"
)

// Fault kinds.
const (
	SIGKILL        = "sigkill"         // SIGKILL, restarted at once with its state file
	SIGKILLNoState = "sigkill-nostate" // SIGKILL, state file deleted, restarted
	SIGSTOP        = "sigstop"         // SIGSTOP longer than the lease, then SIGCONT
	Restart        = "restart"         // SIGTERM (the documented shutdown), restarted
	Partition      = "partition"       // fault proxy resets every connection
	Blackhole      = "blackhole"       // fault proxy holds every byte
	Stall          = "stall"           // a short black hole: a latency spike, held bytes flow on
	LostReplies    = "lost-replies"    // requests applied, replies swallowed
	CoordRestart   = "coordinator"     // the coordinator restarts (or kills our sessions)
	ForceFree      = "forcefree"       // SIGKILL, its machine ID freed as lease free --force does, restarted without state
	PauseEdge      = "sigstop-edge"    // SIGSTOP ending about when the safe window ends
	Slow           = "slow"            // the coordinator answers late: held bytes flow on after about the safe window
	ClockStep      = "clock-step"      // the worker's wall clock steps to a new offset within ClockOffsetCap
	LateReply      = "late-reply"      // held bytes flow on (a renewal answered late, inside its window), then a partition longer than the lease
)

// Fault is one entry of the schedule.
type Fault struct {
	At     time.Duration `json:"at"`
	Kind   string        `json:"kind"`
	Target string        `json:"target"` // a worker slot, or "coordinator"
	For    time.Duration `json:"for,omitempty"`
	Offset time.Duration `json:"clock_offset,omitempty"` // the worker's new clock offset (clock-step)
}

func (f Fault) String() string {
	s := fmt.Sprintf("%8s  %-16s %-12s", f.At.Round(time.Millisecond), f.Kind, f.Target)
	if f.For > 0 {
		s += " for " + f.For.Round(time.Millisecond).String()
	}
	if f.Kind == ClockStep {
		s += " clock offset " + f.Offset.String()
	}
	return s
}

// Plan is a run's seeded schedule: the same seed and parameters give the
// same plan.
type Plan struct {
	Seed    uint64          `json:"seed"`
	Offsets []time.Duration `json:"initial_clock_offsets"`
	Faults  []Fault         `json:"faults"`
}

// MaxClockOffset bounds the workers' factory clock offsets from the real
// clock, which is also the coordinator's: within the manager's default
// HandoffSkew (1s), the skew the hand-off guard allows between a holder's
// clock and the coordinator's.
const MaxClockOffset = 900 * time.Millisecond

// ClockOffsetCap is the largest clock offset a run with leases of
// leaseDur draws: MaxClockOffset, and 100ms less than the safety margin of
// a short test lease (a tenth of it). A factory checks its lease's deadline
// on its own clock while the manager computed it on the real one, so a
// factory whose clock is behind generates that much past the deadline; it
// must stop before the coordinator's expiry, which is a margin later. (On
// a real host both read one clock; the offset is the soak's device for
// skewed clocks.)
func ClockOffsetCap(leaseDur time.Duration) time.Duration {
	if leaseDur < 30*time.Second {
		return min(MaxClockOffset, leaseDur/10-100*time.Millisecond)
	}
	return MaxClockOffset
}

// offset draws a clock offset of 9/10..1 of max, ahead or behind with
// equal odds (sign 0) or as sign says: two workers are then either within
// a tenth of max or at least 9/5 of max apart, and a hand-off from a clock
// ahead to one behind exposes a missing hand-off guard as soon as the time
// between the two holders' IDs is below their difference. With short
// leases that difference (0.9..1s at 6s) exceeds the safety margin (the
// least time between a holder's last ID and its lease's expiry) by
// 300..400ms: a successor that claims within that of the expiry, as the
// waiters on the beat do, repeats IDs without the hand-off guard or its
// skew.
func offset(r *rand.Rand, max time.Duration, sign int) time.Duration {
	d := max*9/10 + time.Duration(r.Int64N(int64(max/10)+1))
	if sign < 0 || sign == 0 && r.IntN(2) == 0 {
		return -d
	}
	return d
}

// offsetSign is the sign of worker slot i's initial clock offset: ahead
// and behind in turn, so that half the pairs of workers are far apart
// whatever the seed. With fewer IDs than workers the turn is by runs of
// ids slots: slots i and i+ids, which share a machine ID on a coordinator
// that maps slot to ID (guard), are then on opposite sides, and every
// hand-off between them goes from a clock ahead to one behind or back.
func offsetSign(i, ids int) int {
	if ids > 0 {
		i /= ids
	}
	return 1 - 2*(i%2)
}

// MakePlan draws the schedule: faults from 8s after the start until 20s
// before the end, on average meanGap apart, each on a worker slot not
// already under a fault (coordinator faults one at a time). ids is the
// run's -ids (0: all 512).
func MakePlan(seed uint64, procs, ids int, duration, meanGap, leaseDur time.Duration, kinds []string) Plan {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	p := Plan{Seed: seed}
	maxOff := ClockOffsetCap(leaseDur)
	for i := range procs {
		p.Offsets = append(p.Offsets, offset(r, maxOff, offsetSign(i, ids)))
	}
	busy := make([]time.Duration, procs+1) // the last is the coordinator
	end := duration - 20*time.Second
	for t := 8 * time.Second; ; {
		t += time.Duration(r.ExpFloat64() * float64(meanGap))
		if t >= end || len(kinds) == 0 {
			break
		}
		f := Fault{At: t, Kind: kinds[r.IntN(len(kinds))]}
		slot := r.IntN(procs)
		switch f.Kind {
		case SIGSTOP:
			f.For = leaseDur + 5*time.Second + time.Duration(r.Int64N(int64(10*time.Second)))
		case Partition, Blackhole:
			// Half shorter than the safe window (renewals retry through
			// it), half longer (the factory must stop at its deadline).
			f.For = 500*time.Millisecond + time.Duration(r.Int64N(int64(leaseDur)))
		case PauseEdge:
			// The safe window is 9/10 of the lease (the margin is a
			// tenth); the pause starts at a random point after the last
			// renewal, so it ends on either side of the window's end.
			f.For = leaseDur*7/10 + time.Duration(r.Int64N(int64(leaseDur*3/10)))
		case Slow:
			f.For = leaseDur*8/10 + time.Duration(r.Int64N(int64(leaseDur*4/10)))
		case LateReply:
			// The hold: a renewal sent in it is answered at its end, 1s
			// or more late, before the window of the lease it renews
			// ends (renewals are about a quarter of a lease apart); the
			// partition after it outlasts that window, so the worker
			// stops where its window, counted from the request, ends.
			f.For = leaseDur*4/10 + time.Duration(r.Int64N(int64(leaseDur/4)))
		case Stall:
			f.For = 200*time.Millisecond + time.Duration(r.Int64N(int64(1300*time.Millisecond)))
		case LostReplies:
			f.For = 200*time.Millisecond + time.Duration(r.Int64N(int64(3*time.Second)))
		case ClockStep:
			// A slot keeps its offset across restarts: the offset is
			// the factory's alone, which a new incarnation's manager
			// cannot see (its state file's clock bound reads the real
			// clock), so a new offset there would be a wall-clock step
			// hidden from the manager, not one a host can make.
			f.Offset = offset(r, maxOff, 0)
		case CoordRestart:
			slot = procs
		}
		if busy[slot] > t {
			continue
		}
		busy[slot] = t + f.For + 2*time.Second
		if f.Kind == LateReply {
			busy[slot] += leaseDur * 6 / 5 // the partition after the hold
		}
		if slot == procs {
			f.Target = "coordinator"
		} else {
			f.Target = fmt.Sprintf("w%d", slot+1)
		}
		p.Faults = append(p.Faults, f)
	}
	slices.SortFunc(p.Faults, func(a, b Fault) int { return int(a.At - b.At) })
	return p
}

// Print writes the plan, one fault a line.
func (p Plan) Print(w io.Writer) {
	fmt.Fprintf(w, "schedule (seed %d): initial clock offsets %v\n", p.Seed, p.Offsets)
	for _, f := range p.Faults {
		fmt.Fprintln(w, "  "+f.String())
	}
}
