package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// binDir holds the once binary that process tests run; built on first use.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "once-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildTags are the build tags of this test binary that select drivers
// (etcd, kubernetes): the binary the tests run is built with them too.
var buildTags []string

// binary returns the path of the once binary, building it (without -race,
// so that tens of processes stay light, and with buildTags) the first time.
func binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(binDir, "once")
		out, err := exec.Command("go", "build", "-tags", strings.Join(buildTags, ","), "-o", binPath, "github.com/once-go/once/cmd/once").CombinedOutput()
		if err != nil {
			binError = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// result is what one run of the CLI produced.
type result struct {
	stdout, stderr string
	code           int
}

// lines splits stdout into lines (none for empty output).
func (r result) lines() []string { return splitLines(r.stdout) }

// errLines splits stderr into lines.
func (r result) errLines() []string { return splitLines(r.stderr) }

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// cli runs the CLI in-process with stdin and args.
func cli(stdin string, args ...string) result {
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(stdin), &out, &errb)
	return result{out.String(), errb.String(), code}
}

// mustCLI runs the CLI in-process and fails the test unless it exits 0
// with nothing on stderr.
func mustCLI(t *testing.T, stdin string, args ...string) []string {
	t.Helper()
	r := cli(stdin, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("once %s: %v", strings.Join(args, " "), r)
	}
	return r.lines()
}

// equalLines fails the test unless got equals want.
func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d lines, want %d\ngot:  %q\nwant: %q", what, len(got), len(want), got, want)
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: line %d = %q, want %q", what, i+1, got[i], want[i])
		}
	}
}
