package faultsuite

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// The holder process. With FAULTSUITE_HOLDER=1 the test binary runs
// holderMain instead of the tests (see Main): it starts a lease
// manager (short leases) with a real nonce factory on the coordinator
// named by -coord, prints "machine_id=N" once it holds a lease, then draws
// Sortable64 values continuously and streams them, with every lifecycle
// call the manager makes on the factory, to stdout, one line each,
// unbuffered (a kill -9 loses at most the line being written):
//
//	machine_id=N                    the first lease is held
//	v HEX START END                 a value, drawn from START to END
//	x START REASON                  a refused draw (first of a run of refusals)
//	act ID AT NOTBEFORE VALIDUNTIL  Activate (a new lease)
//	en AT VALIDUNTIL OK|ERR         Enable (same lease after a late renewal)
//	ext AT VALIDUNTIL               Extend (renewal)
//	dis AT                          Disable
//	lost AT REASON                  the manager's lost event
//
// Times are Unix nanoseconds of the holder's true wall clock (the -skew
// flag skews only its factory's clock). SIGUSR1 cuts the holder off its
// coordinator (every strategy call fails with ErrRetry from then on, as
// over a dead network; it works for SQLite too). SIGTERM or SIGINT closes
// the manager (releasing the lease) and exits 0; no lease within -acquire
// exits 3. Run it by hand with:
//
//	cd tests && go test -c -tags oncetest -o /tmp/faults ./faultsuite
//	FAULTSUITE_HOLDER=1 /tmp/faults -coord postgres -target "$DSN" -ns once_leases
func holderMain(args []string) int {
	fs := flag.NewFlagSet("holder", flag.ContinueOnError)
	var (
		coord   = fs.String("coord", "", "coordinator (a name from the suite's table)")
		target  = fs.String("target", "", "DSN, address or SQLite file of the coordinator")
		ns      = fs.String("ns", "", "table or Redis NAME")
		state   = fs.String("state", "", "lease.Options.StateFile")
		skew    = fs.Duration("skew", 0, "offset of the factory's wall clock")
		handoff = fs.Duration("handoff-skew", suiteHandoffSkew, "lease.Options.HandoffSkew")
		lowest  = fs.Bool("lowest", false, "take the lowest free ID")
		acquire = fs.Duration("acquire", 5*time.Second, "acquire timeout")
		every   = fs.Duration("every", drawEvery, "pause between draws")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var c *Coordinator
	for i := range coordinators {
		if coordinators[i].Name == *coord {
			c = &coordinators[i]
		}
	}
	if c == nil {
		fmt.Fprintf(os.Stderr, "holder: unknown coordinator %q\n", *coord)
		return 2
	}
	cl, err := c.Connect(*target, *ns, 2)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 1
	}
	defer cl.Close()
	inner, err := cl.Strategy(*lowest)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 1
	}
	// SIGUSR1 cuts the holder off its coordinator for good: every
	// strategy call fails as a dead network would make it fail.
	s := &cutStrategy{Strategy: inner}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() { <-usr1; s.cut.Store(true) }()
	out := &lineWriter{w: os.Stdout}
	rf := newRecFactory(*skew)
	rf.onEvent = func(e lifeEvent) {
		at := e.at.UnixNano()
		switch e.kind {
		case lifeActivate:
			out.printf("act %d %d %d %d\n", e.id, at, unixNano(e.notBefore), unixNano(e.validUntil))
		case lifeEnable:
			ok := "OK"
			if e.err != nil {
				ok = "ERR"
			}
			out.printf("en %d %d %s\n", at, unixNano(e.validUntil), ok)
		case lifeExtend:
			out.printf("ext %d %d\n", at, unixNano(e.validUntil))
		case lifeDisable:
			out.printf("dis %d\n", at)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	m, err := lease.Start(leasehook.With(context.Background(), rf), s, short(lease.Options{
		LeaseDuration:  leaseDur,
		RenewInterval:  renewEvery,
		HandoffSkew:    *handoff,
		AcquireTimeout: *acquire,
		StateFile:      *state,
		ReleaseTimeout: 500 * time.Millisecond,
		Events: func(e lease.Event) {
			if e.Kind == lease.EventLost {
				out.printf("lost %d %s\n", time.Now().UnixNano(), oneLine(e.Err.Error()))
			}
		},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		if errors.Is(err, lease.ErrTimeout) {
			return 3
		}
		return 1
	}
	out.printf("machine_id=%d\n", m.MachineID())
	done := make(chan struct{})
	go func() {
		defer close(done)
		refusing := false
		for ctx.Err() == nil {
			s := time.Now()
			v, err := rf.f.Sortable64()
			e := time.Now()
			switch {
			case err == nil:
				out.printf("v %x %d %d\n", v, s.UnixNano(), e.UnixNano())
				refusing = false
			case !refusing:
				out.printf("x %d %s\n", s.UnixNano(), oneLine(err.Error()))
				refusing = true
			}
			time.Sleep(*every)
		}
	}()
	<-ctx.Done()
	<-done
	cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	m.Close(cctx)
	return 0
}

// cutStrategy is the holder's strategy: the real one until cut, then a
// coordinator that cannot be reached (every call fails with ErrRetry).
type cutStrategy struct {
	driver.Strategy
	cut atomic.Bool
}

var errCut = fmt.Errorf("holder: cut off the coordinator (SIGUSR1): %w", driver.ErrRetry)

func (c *cutStrategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	if c.cut.Load() {
		return driver.Lease{}, errCut
	}
	return c.Strategy.Acquire(ctx, d)
}

func (c *cutStrategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	if c.cut.Load() {
		return driver.Lease{}, errCut
	}
	return c.Strategy.Renew(ctx, l, d)
}

func (c *cutStrategy) Release(ctx context.Context, l driver.Lease) error {
	if c.cut.Load() {
		return errCut
	}
	return c.Strategy.Release(ctx, l)
}

// Reclaim forwards to the real strategy; one that cannot reclaim says the
// lease is gone (the manager then acquires).
func (c *cutStrategy) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	if c.cut.Load() {
		return driver.Lease{}, errCut
	}
	if r, ok := c.Strategy.(driver.Reclaimer); ok {
		return r.Reclaim(ctx, l, d)
	}
	return driver.Lease{}, fmt.Errorf("holder: %s cannot reclaim: %w", c.Name(), lease.ErrLost)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// lineWriter writes whole lines to w, one write each, from any goroutine.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}

// proc is a running holder process, seen from the test: its output
// parsed into draws, lifecycle calls and losses as it arrives.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	stderr bytes.Buffer

	mu     sync.Mutex
	ids    []int // machine_id lines
	draws  []draw
	life   []lifeEvent
	losses []timedErr
	bad    []string // lines that did not parse
	outEOF chan struct{}
}

type holderArgs struct {
	state       string
	skew        time.Duration
	handoffSkew time.Duration // 0: suiteHandoffSkew
	lowest      bool
}

// startHolder starts a holder process on sp and waits for its first
// machine ID. The process is killed when t ends.
func startHolder(t *testing.T, c Coordinator, sp *Space, a holderArgs) *proc {
	t.Helper()
	p := launchHolder(t, c, sp, a)
	p.waitID(10 * time.Second)
	return p
}

// launchHolder starts a holder process without waiting for its lease.
func launchHolder(t *testing.T, c Coordinator, sp *Space, a holderArgs) *proc {
	t.Helper()
	args := []string{"-coord", c.Name, "-target", sp.Target, "-ns", sp.NS, "-skew", a.skew.String()}
	if a.state != "" {
		args = append(args, "-state", a.state)
	}
	if a.handoffSkew != 0 {
		args = append(args, "-handoff-skew", a.handoffSkew.String())
	}
	if a.lowest {
		args = append(args, "-lowest")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), holderEnv+"=1")
	p := &proc{t: t, name: "holder " + c.Name, cmd: cmd, exited: make(chan struct{}), outEOF: make(chan struct{})}
	cmd.Stderr = &syncWriter{b: &p.stderr, mu: &p.mu}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(stdout)
	go func() { <-p.outEOF; cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		<-p.exited
		if t.Failed() {
			p.mu.Lock()
			t.Logf("%s (pid %d) stderr:\n%s", p.name, cmd.Process.Pid, LastLines(p.stderr.String(), 20))
			p.mu.Unlock()
		}
	})
	return p
}

type syncWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (p *proc) read(r io.Reader) {
	defer close(p.outEOF)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		if err := p.parse(line); err != nil {
			p.bad = append(p.bad, line)
		}
		p.mu.Unlock()
	}
}

// parse records one output line; p.mu is held.
func (p *proc) parse(line string) error {
	if id, ok := strings.CutPrefix(line, "machine_id="); ok {
		n, err := strconv.Atoi(id)
		p.ids = append(p.ids, n)
		return err
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return errors.New("empty")
	}
	ints := func(from int) ([]int64, error) {
		var out []int64
		for _, s := range f[from:] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	at := func(ns int64) time.Time {
		if ns == 0 {
			return time.Time{}
		}
		return time.Unix(0, ns)
	}
	switch f[0] {
	case "v":
		if len(f) != 4 {
			return errors.New("short")
		}
		v, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			return err
		}
		n, err := ints(2)
		if err != nil {
			return err
		}
		p.draws = append(p.draws, draw{start: at(n[0]), end: at(n[1]), v: v})
	case "x":
		if len(f) < 2 {
			return errors.New("short")
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return err
		}
		p.draws = append(p.draws, draw{start: at(n), err: errors.New(strings.Join(f[2:], " "))})
	case "act":
		n, err := ints(1)
		if err != nil || len(n) != 4 {
			return fmt.Errorf("bad act: %v", err)
		}
		p.life = append(p.life, lifeEvent{kind: lifeActivate, id: int(n[0]), at: at(n[1]), notBefore: at(n[2]), validUntil: at(n[3])})
	case "en":
		if len(f) != 4 {
			return errors.New("short")
		}
		a, err1 := strconv.ParseInt(f[1], 10, 64)
		v, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return errors.Join(err1, err2)
		}
		e := lifeEvent{kind: lifeEnable, at: at(a), validUntil: at(v)}
		if f[3] != "OK" {
			e.err = errors.New("enable failed")
		}
		p.life = append(p.life, e)
	case "ext":
		n, err := ints(1)
		if err != nil || len(n) != 2 {
			return fmt.Errorf("bad ext: %v", err)
		}
		p.life = append(p.life, lifeEvent{kind: lifeExtend, at: at(n[0]), validUntil: at(n[1])})
	case "dis":
		n, err := ints(1)
		if err != nil || len(n) != 1 {
			return fmt.Errorf("bad dis: %v", err)
		}
		p.life = append(p.life, lifeEvent{kind: lifeDisable, at: at(n[0])})
	case "lost":
		if len(f) < 2 {
			return errors.New("short")
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return err
		}
		p.losses = append(p.losses, timedErr{at(n), errors.New(strings.Join(f[2:], " "))})
	default:
		return errors.New("unknown line")
	}
	return nil
}

// waitID waits for the first machine_id line and returns the ID.
func (p *proc) waitID(d time.Duration) int {
	p.t.Helper()
	end := time.After(d)
	for {
		p.mu.Lock()
		if len(p.ids) > 0 {
			id := p.ids[0]
			p.mu.Unlock()
			return id
		}
		p.mu.Unlock()
		select {
		case <-p.exited:
			p.mu.Lock()
			defer p.mu.Unlock()
			p.t.Fatalf("%s exited (%v) before holding a lease: %s", p.name, p.cmd.ProcessState, LastLines(p.stderr.String(), 5))
		case <-end:
			p.t.Fatalf("%s: no machine ID within %v", p.name, d)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// id returns the first machine ID.
func (p *proc) id() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[0]
}

// waitValues waits until n values drawn after since have been printed.
func (p *proc) waitValues(since time.Time, n int, d time.Duration) {
	p.t.Helper()
	d = waitBound(d)
	end := time.Now().Add(d)
	for {
		got := 0
		for _, x := range p.snapshot() {
			if x.err == nil && !x.start.Before(since) {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(end) {
			p.t.Fatalf("%s: %d values in %v after %s, want %d", p.name, got, d, clock(since), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitLife waits for a lifecycle call of kind after since.
func (p *proc) waitLife(kind lifeKind, since time.Time, d time.Duration) lifeEvent {
	p.t.Helper()
	d = waitBound(d)
	end := time.Now().Add(d)
	for {
		for _, e := range p.lifecycle() {
			if e.kind == kind && !e.at.Before(since) {
				return e
			}
		}
		if time.Now().After(end) {
			p.t.Fatalf("%s: no %s within %v after %s", p.name, kind, d, clock(since))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *proc) snapshot() []draw {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]draw(nil), p.draws...)
}

// lifecycle returns the lifecycle calls in time order.
func (p *proc) lifecycle() []lifeEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]lifeEvent(nil), p.life...)
	sortLife(out)
	return out
}

func (p *proc) lost() []timedErr {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]timedErr(nil), p.losses...)
}

// lastGrant returns the latest lifecycle call that set a deadline.
func (p *proc) lastGrant() (lifeEvent, bool) {
	life := p.lifecycle()
	for i := len(life) - 1; i >= 0; i-- {
		if e := life[i]; e.kind != lifeDisable {
			return e, true
		}
	}
	return lifeEvent{}, false
}

func (p *proc) signal(sig syscall.Signal) {
	if p.cmd.Process != nil {
		p.cmd.Process.Signal(sig)
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// stop sends SIGTERM (the holder releases its lease) and waits for the
// exit.
func (p *proc) stop(d time.Duration) {
	p.t.Helper()
	p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(d):
		p.t.Errorf("%s did not exit within %v of SIGTERM", p.name, d)
	}
}

// check checks the process's output once it is over: no unparsed lines
// and every value drawn under a lease.
func (p *proc) check(skew time.Duration, seen map[uint64]string) int {
	p.t.Helper()
	p.mu.Lock()
	bad := append([]string(nil), p.bad...)
	p.mu.Unlock()
	if len(bad) > 0 {
		p.t.Errorf("%s printed %d unparsable lines, first %q", p.name, len(bad), bad[0])
	}
	return checkDraws(p.t, p.name, p.snapshot(), p.lifecycle(), skew, seen)
}
