// Command plant runs the catalogue of planted lease protocol bugs: each bug
// is applied as a text patch to a copy of the tree, and the copy is run
// through three checks, each with its own deadline:
//
//	fast      .ci/fast: the -short tests of the library, no services
//	targeted  the test written for the bug's failure mode (-tags oncetest)
//	soak      a contention soak (4 workers on 2 machine IDs, short leases)
//	          on the bug's coordinator, with a printed seed
//
// A bug is caught when a check fails; the kill matrix says which did. The
// run fails when a bug survives every check it ran, when a patch no longer
// applies (the catalogue is stale), or, with -baseline, when a check fails
// on the unpatched tree.
//
//	plant -list
//	plant [-bugs a,b | -pick N] [-seed S] [-checks fast,targeted,soak] [-first] [-baseline] [-out DIR]
//
// See docs/reliability.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout))
}

type config struct {
	root     string        // the repository
	work     string        // where the copy lives (a fixed path: the build cache stays warm)
	out      string        // logs and the matrix
	seed     uint64        // the soak's seed, and -pick's
	checks   []string      // fast, targeted, soak
	first    bool          // stop at the first check that catches a bug
	soakFor  time.Duration // length of each soak
	deadline time.Duration // each check's deadline
	parallel int           // bugs run at once, each in a copy of its own
	rate     int           // the soak's IDs per second per worker
}

func run(args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("plant", flag.ContinueOnError)
	var c config
	list := fs.Bool("list", false, "print the catalogue and exit")
	bugs := fs.String("bugs", "", "comma-separated bug names (default: all)")
	pick := fs.Int("pick", 0, "run N bugs drawn by -seed (CI)")
	baseline := fs.Bool("baseline", false, "run the checks on the unpatched tree first; a failure there fails the run")
	checks := fs.String("checks", "fast,targeted,soak", "the checks to run, in order")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the soaks and of -pick (default: the time)")
	fs.BoolVar(&c.first, "first", false, "stop at the first check that catches a bug")
	fs.DurationVar(&c.soakFor, "soak", 2*time.Minute, "length of each contention soak")
	fs.DurationVar(&c.deadline, "deadline", 10*time.Minute, "deadline of each check (a check that runs past it has caught its bug: it hung)")
	fs.IntVar(&c.parallel, "parallel", 1, "bugs run at once, each in a copy of the tree of its own")
	fs.IntVar(&c.rate, "rate", 300, "the soak's IDs per second per worker, at most")
	fs.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "once-plant"), "work directory (the tree's copy; reused)")
	fs.StringVar(&c.out, "out", "", "directory for logs and matrix.md (default WORK/out-SEED)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *list {
		for _, b := range catalogue {
			fmt.Fprintf(stdout, "%-28s %-8s %-10s %s\n", b.Name, b.Class, b.Coordinator, b.What)
		}
		return 0
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano()%1e6) + 1
	}
	c.checks = strings.Split(*checks, ",")
	for _, k := range c.checks {
		if !slices.Contains([]string{"fast", "targeted", "soak"}, k) {
			fmt.Fprintf(os.Stderr, "plant: unknown check %q (fast, targeted, soak)\n", k)
			return 2
		}
	}
	chosen, err := choose(*bugs, *pick, c.seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "plant:", err)
		return 2
	}
	if c.root, err = repoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, "plant:", err)
		return 2
	}
	if c.out == "" {
		c.out = filepath.Join(c.work, fmt.Sprintf("out-%d", c.seed))
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "plant:", err)
		return 2
	}
	names := make([]string, len(chosen))
	for i, b := range chosen {
		names[i] = b.Name
	}
	fmt.Fprintf(stdout, "plant: seed %d, %d bugs (%s), checks %s, soak %v, logs in %s\n",
		c.seed, len(chosen), strings.Join(names, ", "), strings.Join(c.checks, ","), c.soakFor, c.out)
	if c.parallel < 1 {
		c.parallel = 1
	}
	trees := make(chan string, c.parallel)
	for i := range c.parallel {
		tree := filepath.Join(c.work, fmt.Sprintf("tree%d", i+1))
		if err := copyTree(c.root, tree); err != nil {
			fmt.Fprintln(os.Stderr, "plant: copying the tree:", err)
			return 2
		}
		if out, err := exec.Command("bash", filepath.Join(tree, ".ci/gowork")).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "plant: .ci/gowork: %v\n%s", err, out)
			return 2
		}
		trees <- tree
	}
	var rows []row
	status := 0
	if *baseline {
		tree := <-trees
		r := c.runBug(stdout, tree, Bug{Name: "(none)", Class: "-", Coordinator: "postgres", Targeted: Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestHandoffSkew$/^postgres$"}})
		trees <- tree
		rows = append(rows, r)
		if r.caught() {
			fmt.Fprintln(stdout, "plant: a check failed on the unpatched tree: it proves nothing about the bugs")
			status = 1
		}
		if r.invalid() {
			status = 1
		}
	}
	results := make([]row, len(chosen))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, b := range chosen {
		tree := <-trees
		wg.Go(func() {
			defer func() { trees <- tree }()
			if err := applyBug(c.root, tree, b); err != nil {
				fmt.Fprintf(stdout, "plant: %s: %v\n", b.Name, err)
				results[i] = row{bug: b, stale: err.Error()}
				restoreBug(c.root, tree, b)
				return
			}
			results[i] = c.runBug(stdout, tree, b)
			if err := restoreBug(c.root, tree, b); err != nil {
				mu.Lock()
				fmt.Fprintln(os.Stderr, "plant: restoring the copy:", err)
				status = 2
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if status == 2 {
		return 2
	}
	for _, r := range results {
		rows = append(rows, r)
		if r.stale != "" || r.invalid() || !r.caught() && r.bug.Equivalent == "" && r.bug.Open == "" {
			status = 1
		}
		if r.caught() && r.bug.Open != "" {
			fmt.Fprintf(stdout, "plant: %s is caught now: drop its Open note\n", r.bug.Name)
		}
	}
	m := matrix(rows, c)
	fmt.Fprint(stdout, m)
	if err := os.WriteFile(filepath.Join(c.out, "matrix.md"), []byte(m), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "plant:", err)
		return 2
	}
	return status
}

// choose returns the named bugs, n bugs drawn by seed, or the whole
// catalogue.
func choose(names string, n int, seed uint64) ([]Bug, error) {
	switch {
	case names != "" && n > 0:
		return nil, errors.New("-bugs and -pick exclude each other")
	case names != "":
		var out []Bug
		for _, name := range strings.Split(names, ",") {
			i := slices.IndexFunc(catalogue, func(b Bug) bool { return b.Name == name })
			if i < 0 {
				return nil, fmt.Errorf("no bug %q in the catalogue (plant -list)", name)
			}
			out = append(out, catalogue[i])
		}
		return out, nil
	case n > 0:
		var known []Bug // the bugs some check catches
		for _, b := range catalogue {
			if b.Open == "" && b.Equivalent == "" {
				known = append(known, b)
			}
		}
		if n > len(known) {
			return nil, fmt.Errorf("-pick %d: the catalogue has %d bugs that a check catches", n, len(known))
		}
		r := rand.New(rand.NewPCG(seed, seed^0x91a47))
		idx := r.Perm(len(known))[:n]
		slices.Sort(idx)
		out := make([]Bug, n)
		for i, j := range idx {
			out[i] = known[j]
		}
		return out, nil
	}
	return slices.Clone(catalogue), nil
}

// outcome is how one check ended on one bug.
type outcome struct {
	failed   bool          // the check failed: the bug is caught
	hung     bool          // it ran past its deadline
	took     time.Duration // how long it ran
	why      string        // the first line that says why it failed
	handoffs string        // the soak's hand-off count
	na       bool          // the check cannot reach the bug (the fast path, for a module of its own)
	invalid  bool          // the check ran but proved nothing (a soak without IDs or hand-offs)
}

type row struct {
	bug    Bug
	stale  string // the patch did not apply
	checks map[string]outcome
}

// invalid reports whether a check of r ran without proving anything.
func (r row) invalid() bool {
	for _, o := range r.checks {
		if o.invalid {
			return true
		}
	}
	return false
}

func (r row) caught() bool {
	for _, o := range r.checks {
		if o.failed {
			return true
		}
	}
	return false
}

func (c config) runBug(stdout io.Writer, tree string, b Bug) row {
	r := row{bug: b, checks: map[string]outcome{}}
	for _, k := range c.checks {
		start := time.Now()
		log := filepath.Join(c.out, b.slug()+"."+k+".log")
		var o outcome
		switch k {
		case "fast":
			pkgs, err := fastPkgs(tree, b)
			switch {
			case len(b.Patch) == 0: // the baseline: the whole fast path
				o = c.command(tree, tree, log, "bash", ".ci/fast")
			case err != nil:
				o = outcome{failed: true, why: "listing the fast path's packages: " + err.Error()}
			case len(pkgs) == 0:
				o = outcome{na: true}
			default:
				o = c.command(tree, tree, log, "env", "FAST_PKGS="+strings.Join(pkgs, " "), "bash", ".ci/fast")
			}
		case "targeted":
			args := append([]string{"test", "-tags", "oncetest", "-count=1", "-timeout", (c.deadline - 30*time.Second).String(), "-run", b.Targeted.Run}, b.Targeted.Pkgs...)
			o = c.command(tree, filepath.Join(tree, b.Targeted.Dir), log, "go", args...)
		case "soak":
			o = c.soak(tree, log, b)
		}
		o.took = time.Since(start).Round(time.Second)
		r.checks[k] = o
		verdict := "passed"
		if o.na {
			verdict = "not applicable: no package of the fast path reaches the bug (a module of its own)"
		}
		if o.failed {
			verdict = "CAUGHT: " + o.why
		}
		if o.invalid {
			verdict = "INVALID (proves nothing): " + o.why
		}
		fmt.Fprintf(stdout, "plant: %-28s %-8s %6v  %s\n", b.Name, k, o.took, verdict)
		if o.failed && c.first {
			break
		}
	}
	return r
}

// command runs name args in dir with the check's deadline, its output in
// log. A non-zero exit or the deadline is a failure.
func (c config) command(tree, dir, log, name string, args ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
	defer cancel()
	f, err := os.Create(log)
	if err != nil {
		return outcome{failed: true, why: err.Error()}
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, f, f
	// A service that is down fails the check instead of skipping it: a
	// skipped test would count as a bug that survived.
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(tree, "go.work"), "ONCE_TEST_REQUIRE=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return outcome{failed: true, hung: true, why: fmt.Sprintf("still running after the %v deadline", c.deadline)}
	case err != nil:
		return outcome{failed: true, why: firstFailure(log)}
	}
	return outcome{}
}

// soak builds the copy's soak and runs a contention soak on b's
// coordinator: 4 workers on machine IDs 0 and 1, leases of 6s renewed
// every 2s (the oncetest tag allows them), faults every 3s on average.
func (c config) soak(tree, log string, b Bug) outcome {
	bin := tree + ".soak"
	if o := c.command(tree, filepath.Join(tree, "tests"), log+".build", "go", "build", "-tags", "oncetest", "-o", bin, "./cmd/soak"); o.failed {
		o.why = "the soak does not build: " + o.why
		return o
	}
	dir := filepath.Join(c.out, b.slug()+".soak")
	os.RemoveAll(dir)
	o := c.command(tree, tree, log, bin, "-coordinator", b.Coordinator, "-procs", "4", "-ids", "2",
		"-lease", "6s", "-renew", "2s", "-gap", "3s", "-rate", fmt.Sprint(c.rate),
		"-duration", c.soakFor.String(), "-seed", fmt.Sprint(c.seed), "-out", dir)
	o.handoffs = soakHandoffs(log)
	if o.failed && !o.hung && soakInvalid(log) {
		// Not a catch: the run proved nothing (a coordinator down).
		o.failed, o.invalid, o.why = false, true, firstFailure(log)
	}
	return o
}

func (b Bug) slug() string { return strings.NewReplacer("(", "", ")", "", "/", "-").Replace(b.Name) }
