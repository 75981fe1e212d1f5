// Package soakrun runs the soak: worker processes on one coordinator, a
// seeded fault schedule, then the checker on the records and the report.
package soakrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/tests/faultproxy"
	"github.com/once-go/once/tests/internal/soakrec"
	"github.com/once-go/once/tests/internal/soakwork"
)

// Config is a run's configuration (the soak command's flags).
type Config struct {
	Coordinator   string
	Procs         int
	Duration      time.Duration
	Seed          uint64
	Out           string
	Rate          int // IDs a second per worker, at most
	LeaseDuration time.Duration
	RenewInterval time.Duration
	MeanGap       time.Duration
	IDs           int       // > 0: every worker takes only machine IDs 0..IDs-1
	Faults        []string  // kinds to draw from (default: all the coordinator supports)
	Bin           string    `json:"-"` // the soak binary, for worker mode
	Log           io.Writer `json:"-"`
}

// Applied is a fault as it happened.
type Applied struct {
	Fault
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Err   string    `json:"error,omitempty"`
}

// Outcome is what a run did, for the report.
type Outcome struct {
	Config      Config            `json:"config"`
	Plan        Plan              `json:"plan"`
	Applied     []Applied         `json:"applied"`
	Start       time.Time         `json:"start"`
	End         time.Time         `json:"end"`
	Exits       map[string][]Exit `json:"exits"`
	RecordFiles []string          `json:"record_files"`
}

// Exit is a worker incarnation's end.
type Exit struct {
	Inc    int       `json:"incarnation"`
	PID    int       `json:"pid"`
	At     time.Time `json:"at"`
	Status string    `json:"status"`
	Cause  string    `json:"cause"` // the fault that ended it, "" when it ended on its own
}

type slot struct {
	r        *runner
	name     string
	idx      int
	proxy    *faultproxy.Proxy
	state    string
	mu       sync.Mutex
	cmd      *exec.Cmd
	inc      int
	offset   time.Duration
	cause    string // why the current incarnation is being ended
	nostate  bool
	stopping bool
	stopped  bool // SIGSTOPped
	faulted  bool // under a fault (guarded by runner.targetMu)
	exited   chan struct{}
	done     chan struct{} // closed when the supervisor ends
}

type runner struct {
	coordMu  sync.Mutex // one coordinator fault at a time
	targetMu sync.Mutex // choosing a fault's slot
	cfg      Config
	c        *coord
	slots    []*slot
	mu       sync.Mutex
	out      *Outcome
	faults   *os.File
}

// DefaultFaults lists the kinds a coordinator supports.
func DefaultFaults(coordinator string) []string {
	k := []string{SIGKILL, SIGKILLNoState, SIGSTOP, Restart, ForceFree, PauseEdge, ClockStep}
	switch coordinator {
	case "sqlite":
	case "redis-cluster":
		k = append(k, CoordRestart) // a failover; the cluster client goes to the nodes directly
	default:
		k = append(k, Partition, Blackhole, Stall, LostReplies, CoordRestart, Slow, LateReply)
	}
	return k
}

// ReleaseDeletes reports whether a run on coordinator with seed releases
// Redis leases at once (soakwork.ReleaseHoldVar): odd seeds on redis7,
// redis8 and valkey9 do, so that the seed chooses between the two
// documented release modes. A release that deletes frees an ID for the
// next claim at once, which also lets a claim follow a stray write to a
// lease sooner.
func ReleaseDeletes(coordinator string, seed uint64) bool {
	switch coordinator {
	case "redis7", "redis8", "valkey9":
		return seed%2 == 1
	}
	return false
}

// Run runs the soak and returns its outcome; the caller checks the records.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	for _, d := range []string{"records", "logs", "state"} {
		if err := os.MkdirAll(filepath.Join(cfg.Out, d), 0o755); err != nil {
			return nil, err
		}
	}
	if len(cfg.Faults) == 0 {
		cfg.Faults = DefaultFaults(cfg.Coordinator)
	}
	if ReleaseDeletes(cfg.Coordinator, cfg.Seed) {
		// Inherited by the workers; the forced free uses it too.
		os.Setenv(soakwork.ReleaseHoldVar, "delete")
	}
	ns := fmt.Sprintf("soak_%d_%d", cfg.Seed, time.Now().Unix()%1000000)
	c, err := setupCoord(ctx, cfg.Coordinator, cfg.Out, ns)
	if err != nil {
		return nil, err
	}
	defer c.cleanup()
	plan := MakePlan(cfg.Seed, cfg.Procs, cfg.IDs, cfg.Duration, cfg.MeanGap, cfg.LeaseDuration, cfg.Faults)
	plan.Print(cfg.Log)
	r := &runner{cfg: cfg, c: c, out: &Outcome{Config: cfg, Plan: plan, Exits: map[string][]Exit{}}}
	r.faults, err = os.Create(filepath.Join(cfg.Out, "records", "faults.jsonl"))
	if err != nil {
		return nil, err
	}
	defer r.faults.Close()
	for i := range cfg.Procs {
		s := &slot{r: r, name: fmt.Sprintf("w%d", i+1), idx: i, offset: plan.Offsets[i], done: make(chan struct{}),
			state: filepath.Join(cfg.Out, "state", fmt.Sprintf("w%d.json", i+1))}
		if c.network {
			if s.proxy, err = faultproxy.New(c.server); err != nil {
				return nil, err
			}
			defer s.proxy.Close()
		}
		r.slots = append(r.slots, s)
	}
	r.out.Start = time.Now()
	r.faults.Write(soakrec.Line("run", "start", "t", r.out.Start))
	for _, s := range r.slots {
		s.mu.Lock()
		err := s.startLocked()
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		go s.supervise()
	}
	var wg sync.WaitGroup
	for _, f := range plan.Faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.apply(ctx, f)
		}()
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(r.out.Start.Add(cfg.Duration))):
	}
	r.out.End = time.Now()
	r.faults.Write(soakrec.Line("run", "end", "t", r.out.End))
	wg.Wait() // faults end before the end of the schedule (20s margin)
	r.shutdown()
	files, _ := filepath.Glob(filepath.Join(cfg.Out, "records", "*.jsonl"))
	slices.Sort(files)
	r.out.RecordFiles = files
	return r.out, nil
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "%s "+format+"\n", append([]any{time.Since(r.out.Start).Round(time.Millisecond)}, args...)...)
}

// startLocked starts the next incarnation of the slot's worker.
func (s *slot) startLocked() error {
	s.inc++
	cfg := s.r.cfg
	target := s.r.c.target("")
	if s.proxy != nil {
		target = s.r.c.target(s.proxy.Addr())
	}
	name := fmt.Sprintf("%s.%d", s.name, s.inc)
	log, err := os.Create(filepath.Join(cfg.Out, "logs", name+".log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(cfg.Bin, "worker",
		"-proc", s.name, "-coordinator", cfg.Coordinator, "-target", target, "-ns", s.r.c.ns,
		"-state", s.state, "-out", filepath.Join(cfg.Out, "records", name+".jsonl"),
		"-rate", strconv.Itoa(cfg.Rate), "-clock-offset", s.offset.String(),
		"-lease", cfg.LeaseDuration.String(), "-renew", cfg.RenewInterval.String(), "-ids", strconv.Itoa(cfg.IDs),
		"-holding", s.holding(), "-clock-file", s.clockFile())
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "ONCE_KEY=soak-key-0123456789abcdef0123456789abcdef")
	// A process group of its own: a SIGSTOPped worker in the runner's
	// group would have the kernel send the group SIGHUP and SIGCONT
	// when the group is orphaned (the runner's parent exits).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.exited, s.stopped, s.cause, s.nostate = cmd, make(chan struct{}), false, "", false
	return nil
}

// handBack is how long a worker that gave up its machine ID stays away
// in a contention run: longer than the waiting workers' retry pauses
// (lease.Start backs off up to the renew interval).
const handBack = 3 * time.Second

// supervise waits for each incarnation to end and starts the next: at once
// after a fault ended it, after a second when it ended on its own (it
// could not get a lease in time, its coordinator failed it).
func (s *slot) supervise() {
	defer close(s.done)
	for {
		s.mu.Lock()
		cmd, exited := s.cmd, s.exited
		s.mu.Unlock()
		err := cmd.Wait()
		os.Remove(s.holding()) // a killed worker leaves its file behind
		close(exited)
		status := "exit 0"
		if err != nil {
			status = err.Error()
		}
		s.mu.Lock()
		s.r.mu.Lock()
		s.r.out.Exits[s.name] = append(s.r.out.Exits[s.name], Exit{Inc: s.inc, PID: cmd.Process.Pid, At: time.Now(), Status: status, Cause: s.cause})
		s.r.mu.Unlock()
		if s.stopping {
			s.mu.Unlock()
			return
		}
		if s.cause == "" {
			s.r.logf("%s.%d ended on its own: %s (see logs/%s.%d.log)", s.name, s.inc, status, s.name, s.inc)
			s.mu.Unlock()
			time.Sleep(time.Second)
			s.mu.Lock()
			if s.stopping {
				s.mu.Unlock()
				return
			}
		}
		if s.nostate {
			os.Remove(s.state)
		}
		if s.r.cfg.IDs > 0 && (s.cause == Restart || s.nostate) {
			// Contention: a worker that released its ID (restart) or
			// lost its claim to it (no state file) comes back after the
			// waiting workers' next attempts, so that one of them takes
			// the ID (a hand-off) rather than the worker itself (a retake).
			s.mu.Unlock()
			time.Sleep(handBack)
			s.mu.Lock()
			if s.stopping {
				s.mu.Unlock()
				return
			}
		}
		if err := s.startLocked(); err != nil {
			s.r.logf("%s: restart failed: %v", s.name, err)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

func (r *runner) apply(ctx context.Context, f Fault) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Until(r.out.Start.Add(f.At))):
	}
	a := Applied{Fault: f, Start: time.Now()}
	var err error
	var s *slot
	if f.Target != "coordinator" {
		n, _ := strconv.Atoi(f.Target[1:])
		s = r.target(n - 1)
		defer r.untarget(s)
		a.Target = s.name
	}
	switch f.Kind {
	case SIGKILL, SIGKILLNoState, Restart:
		s.mu.Lock()
		s.cause, s.nostate = f.Kind, f.Kind == SIGKILLNoState
		cmd, exited := s.cmd, s.exited
		sig := syscall.SIGKILL
		if f.Kind == Restart {
			sig = syscall.SIGTERM
		}
		err = cmd.Process.Signal(sig)
		s.mu.Unlock()
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	case ForceFree:
		err = r.forceFree(ctx, s)
	case ClockStep:
		// Within ClockOffsetCap of the true clock, as the hand-off guard
		// assumes; a step back by up to twice that from the old offset.
		s.mu.Lock()
		s.offset = f.Offset
		if err = os.WriteFile(s.clockFile(), []byte(f.Offset.String()), 0o644); err == nil {
			err = s.cmd.Process.Signal(syscall.SIGUSR2)
		}
		s.mu.Unlock()
	case SIGSTOP, PauseEdge:
		s.mu.Lock()
		cmd := s.cmd
		err = cmd.Process.Signal(syscall.SIGSTOP)
		s.stopped = err == nil
		s.mu.Unlock()
		time.Sleep(f.For)
		s.mu.Lock()
		cmd.Process.Signal(syscall.SIGCONT)
		s.stopped = false
		s.mu.Unlock()
	case Partition, Blackhole, Stall, LostReplies, Slow:
		switch f.Kind {
		case Partition:
			s.proxy.Cut()
		case Blackhole, Stall, Slow:
			s.proxy.Blackhole()
		case LostReplies:
			s.proxy.DropReplies(-1)
		}
		time.Sleep(f.For)
		s.proxy.Heal()
	case LateReply:
		s.proxy.Blackhole()
		time.Sleep(f.For)
		s.proxy.Heal() // the held reply flows on
		time.Sleep(100 * time.Millisecond)
		s.proxy.Cut()
		time.Sleep(r.cfg.LeaseDuration * 6 / 5)
		s.proxy.Heal()
	case CoordRestart:
		// One coordinator fault at a time: a failover or restart can take
		// longer than the gap the schedule leaves after it.
		r.coordMu.Lock()
		defer r.coordMu.Unlock()
		a.Start = time.Now()
		var ps []*faultproxy.Proxy
		for _, s := range r.slots {
			ps = append(ps, s.proxy)
		}
		if r.c.restart != nil {
			cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			err = r.c.restart(cctx, ps)
			cancel()
		}
	}
	a.End = time.Now()
	if err != nil {
		a.Err = err.Error()
	}
	kind := f.Kind
	if kind == CoordRestart && r.c.restartKind != "" {
		kind = r.c.restartKind
	}
	r.mu.Lock()
	r.out.Applied = append(r.out.Applied, a)
	r.faults.Write(soakrec.Line("fault", kind, "target", a.Target, "t", a.Start, "end", a.End))
	r.mu.Unlock()
	r.logf("fault %s on %s: %v..%v %s", kind, a.Target, a.Start.Sub(r.out.Start).Round(time.Millisecond), a.End.Sub(r.out.Start).Round(time.Millisecond), a.Err)
}

// clockFile is the file from which the slot's worker reads a clock step.
func (s *slot) clockFile() string {
	return filepath.Join(s.r.cfg.Out, "state", s.name+".clock")
}

// holding is the file in which the slot's worker says which machine ID it
// holds (absent while it holds none).
func (s *slot) holding() string {
	return filepath.Join(s.r.cfg.Out, "state", s.name+".holding")
}

// target returns the slot a worker fault drawn for slot i goes to and
// marks it under a fault: slot i, or the first slot from i on
// (cyclically) under no other fault. With every worker on a few machine
// IDs (Config.IDs) a fault on a worker waiting for an ID tests little:
// the fault goes to the first such slot whose worker holds an ID, if any.
func (r *runner) target(i int) *slot {
	r.targetMu.Lock()
	defer r.targetMu.Unlock()
	first := func(ok func(*slot) bool) *slot {
		for k := range r.slots {
			if c := r.slots[(i+k)%len(r.slots)]; !c.faulted && ok(c) {
				return c
			}
		}
		return nil
	}
	var s *slot
	if r.cfg.IDs > 0 {
		s = first(func(c *slot) bool { _, err := os.Stat(c.holding()); return err == nil })
	}
	if s == nil {
		s = first(func(*slot) bool { return true })
	}
	if s == nil {
		s = r.slots[i]
	}
	s.faulted = true
	return s
}

// untarget marks s as under no fault.
func (r *runner) untarget(s *slot) {
	r.targetMu.Lock()
	s.faulted = false
	r.targetMu.Unlock()
}

// shutdown heals every proxy, resumes stopped workers and stops them with
// SIGTERM (the documented shutdown releases their machine IDs); a worker
// still running after 20s is killed.
func (r *runner) shutdown() {
	for _, s := range r.slots {
		if s.proxy != nil {
			s.proxy.Heal()
		}
		s.mu.Lock()
		s.stopping = true
		s.cause = "end of run"
		s.cmd.Process.Signal(syscall.SIGCONT)
		s.cmd.Process.Signal(syscall.SIGTERM)
		s.mu.Unlock()
	}
	for _, s := range r.slots {
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			s.mu.Lock()
			s.cmd.Process.Kill()
			s.mu.Unlock()
			<-s.done
		}
	}
}

// forceFree kills s's worker and frees the machine ID it held the way
// once lease free --force does: it lists the holdings, finds the ID's and
// releases exactly that token. The worker is restarted without its state
// file once the release is done (or failed), so its next incarnation
// contends with the others for the freed ID. A worker holding no ID is
// only killed.
func (r *runner) forceFree(ctx context.Context, s *slot) error {
	s.mu.Lock()
	defer s.mu.Unlock() // the supervisor restarts the worker after this
	id := -1
	if b, err := os.ReadFile(s.holding()); err == nil {
		id, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	s.cause, s.nostate = ForceFree, true
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		return errors.New("the killed worker did not exit")
	}
	if id < 0 {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	target := r.c.target("")
	if r.c.network {
		target = r.c.target(r.c.server)
	}
	st, closeFn, err := soakwork.Connect(cctx, r.cfg.Coordinator, target, r.c.ns, nil)
	if err != nil {
		return fmt.Errorf("force free: %w", err)
	}
	defer closeFn()
	l, ok := st.(driver.Lister)
	if !ok {
		return fmt.Errorf("force free: %s lists no holdings", st.Name())
	}
	slots, err := l.List(cctx)
	if err != nil {
		return fmt.Errorf("force free: list: %w", err)
	}
	for _, sl := range slots {
		if sl.MachineID == id && sl.Token != "" {
			if err := st.Release(cctx, driver.Lease{MachineID: id, Token: sl.Token}); err != nil {
				return fmt.Errorf("force free: release of machine ID %d: %w", id, err)
			}
			r.logf("force free: %s's machine ID %d released (holder %s)", s.name, id, sl.Holder)
			return nil
		}
	}
	return nil // expired or taken over already
}
