package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

// dryrun tries the release of the working tree as its users would get it:
// from a proxy, with a clean GOPATH and module cache and no workspace. It
// installs the CLI as each "go install" line of the README does.
func dryrun(root string) error {
	start := time.Now()
	step := func(what string, since time.Time) {
		fmt.Printf("dryrun: %s (%v)\n", what, time.Since(since).Round(100*time.Millisecond))
	}
	// The proxy is built first, in a directory of its own; the GOPATH of
	// the dry run is named for the release's content (the zips' hashes).
	// The same release gets the same directory, so a second dry run
	// compiles nothing the first one did (the packages' directories in the
	// module cache are part of the build cache's keys). A changed tree gets
	// another one: the go command takes a module cache directory to be
	// immutable and keeps an index of its files in the build cache by
	// path, so a release of the same version with other files in the same
	// place would be built from the old file lists ("could not import ...
	// (open : no such file or directory)").
	proxy, err := os.MkdirTemp("", "once-release-proxy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(proxy)
	r, err := buildProxy(root, proxy)
	if err != nil {
		return err
	}
	tmp := filepath.Join(os.TempDir(), "once-release-dryrun-"+r.contentID())
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	v := r.tree.versions[0].Version
	step("proxy of "+fmt.Sprint(len(r.tree.versions))+" modules at "+v, start)
	env, err := isolatedEnv(tmp, proxy)
	if err != nil {
		return err
	}

	installs, err := readmeInstalls(filepath.Join(root, "README.md"))
	if err != nil {
		return err
	}
	cmdOnce := r.tree.byPath(rootPath + "/cmd/once")
	for _, flags := range installs {
		if err := installCLI(tmp, env, v, flags, r.tree.siblingClosure(cmdOnce)); err != nil {
			return err
		}
	}

	t := time.Now()
	app := filepath.Join(tmp, "app")
	if err := writeProgram(app, "example.com/dryrun/app", appMain); err != nil {
		return err
	}
	if _, err := runIn(app, env, "go", "get", rootPath+"@"+v, rootPath+"/adapters/huma@"+v, rootPath+"/lease/k8slease@"+v); err != nil {
		return err
	}
	if _, err := runIn(app, env, "go", "mod", "tidy"); err != nil {
		return err
	}
	if _, err := runIn(app, env, "go", "build", "-o", "app", "."); err != nil {
		return err
	}
	out, err := runIn(app, env, filepath.Join(app, "app"))
	if err != nil {
		return err
	}
	fmt.Print(indent("app: " + out))
	if err := checkGraph(app, env, v, nil); err != nil {
		return err
	}
	step("go get the root, adapters/huma and lease/k8slease at "+v+", build and run a program on them", t)

	t = time.Now()
	probe := filepath.Join(tmp, "probe")
	if err := writeProgram(probe, "example.com/dryrun/probe", probeMain); err != nil {
		return err
	}
	if _, err := runIn(probe, env, "go", "get", rootPath+"@"+v); err != nil {
		return err
	}
	if _, err := runIn(probe, env, "go", "mod", "tidy"); err != nil {
		return err
	}
	if _, err := runIn(probe, env, "go", "build", "-o", os.DevNull, "."); err != nil {
		return err
	}
	if err := checkGraph(probe, env, v, heavy); err != nil {
		return err
	}
	step("a program on once, nonce, lease, sqllease, redislease and adapters/gorm", t)
	step("done", start)
	return nil
}

// cliInstall matches the README's lines that install the CLI: the go
// install flags (such as -tags) and the version.
var cliInstall = regexp.MustCompile(`(?m)^go install ((?:-\S+ (?:[^-\s]\S* )?)*)` + regexp.QuoteMeta(rootPath) + `/cmd/once@(v\S+)`)

// readmeInstalls returns the flags of each "go install .../cmd/once@VERSION"
// line of the README: one without flags (the default install) first.
func readmeInstalls(path string) ([][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var installs [][]string
	for _, m := range cliInstall.FindAllStringSubmatch(string(b), -1) {
		installs = append(installs, strings.Fields(m[1]))
	}
	if len(installs) == 0 || len(installs[0]) != 0 {
		return nil, fmt.Errorf("%s: want a line \"go install %s/cmd/once@VERSION\" first, then any with flags (found %d)", path, rootPath, len(installs))
	}
	return installs, nil
}

// maxCLISize is the largest binary the default install of the CLI may
// yield (docs/cli.md gives the figures).
const maxCLISize = 30 << 20

// optionalSiblings are the modules of the CLI's drivers that only builds
// with their tags (etcd, kubernetes) contain.
var optionalSiblings = map[string]string{
	rootPath + "/lease/etcdlease": "etcd",
	rootPath + "/lease/k8slease":  "kubernetes",
}

// installCLI runs go install flags cmd/once@v with a clean GOPATH (the
// build cache is the developer's) and checks the binary: once version
// names the siblings the build contains (the drivers' modules exactly when
// their tags are set), once gen makes values, and the default install is
// at most maxCLISize bytes.
func installCLI(tmp string, env []string, v string, flags []string, deps []module.Version) error {
	t := time.Now()
	args := append(append([]string{"install"}, flags...), rootPath+"/cmd/once@"+v)
	if _, err := runIn(tmp, env, "go", args...); err != nil {
		return err
	}
	bin := filepath.Join(tmp, "gopath", "bin", "once")
	st, err := os.Stat(bin)
	if err != nil {
		return err
	}
	fmt.Printf("dryrun: go %s (%v): %.1f MiB\n", strings.Join(args, " "), time.Since(t).Round(100*time.Millisecond), float64(st.Size())/(1<<20))
	if len(flags) == 0 && st.Size() > maxCLISize {
		return fmt.Errorf("go install %s/cmd/once@%s: the binary has %d bytes, more than %d (docs/cli.md)", rootPath, v, st.Size(), maxCLISize)
	}
	out, err := runIn(tmp, env, bin, "version")
	if err != nil {
		return err
	}
	fmt.Print(indent(out))
	tags := strings.Join(flags, " ")
	var want, absent []module.Version
	for _, d := range deps {
		if tag, ok := optionalSiblings[d.Path]; ok && !strings.Contains(tags, tag) {
			absent = append(absent, d)
			continue
		}
		want = append(want, d)
	}
	if err := checkVersionOutput(out, v, want, absent); err != nil {
		return err
	}
	out, err = runIn(tmp, env, bin, "gen", "-n", "2", "--machine-id", "7")
	if err != nil {
		return err
	}
	if n := len(strings.Fields(out)); n != 2 {
		return fmt.Errorf("once gen -n 2 printed %d values: %q", n, short(out))
	}
	fmt.Print(indent("once gen -n 2 --machine-id 7:\n" + out))
	return os.Remove(bin)
}

// heavy matches the modules a program on the root's core packages must not
// have in its module graph.
var heavy = regexp.MustCompile(`^(google\.golang\.org/grpc|go\.etcd\.io/|go\.opentelemetry\.io/|k8s\.io/|go\.uber\.org/zap)`)

// checkGraph lists the module graph of the module in dir: every module of
// this repository at v, none matching forbid.
func checkGraph(dir string, env []string, v string, forbid *regexp.Regexp) error {
	out, err := runIn(dir, env, "go", "list", "-m", "all")
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var bad []string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		if isSibling(f[0]) && f[1] != v {
			bad = append(bad, l+" (want "+v+")")
		}
		if forbid != nil && forbid.MatchString(f[0]) {
			bad = append(bad, l+" (a heavy dependency)")
		}
	}
	fmt.Printf("dryrun: %s: %d modules in go list -m all\n", filepath.Base(dir), len(lines))
	if len(bad) > 0 {
		return fmt.Errorf("module graph of %s:\n\t%s", filepath.Base(dir), strings.Join(bad, "\n\t"))
	}
	return nil
}

// checkVersionOutput checks once version's output: the main module and
// every sibling in deps at v, none of absent.
func checkVersionOutput(out, v string, deps, absent []module.Version) error {
	want := []string{rootPath + "/cmd/once " + v}
	for _, d := range deps {
		want = append(want, d.Path+" "+v)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			return fmt.Errorf("once version does not print %q:\n%s", w, out)
		}
	}
	for _, d := range absent {
		if strings.Contains(out, d.Path+" ") {
			return fmt.Errorf("once version prints %s, which this build should not contain:\n%s", d.Path, out)
		}
	}
	return nil
}

func writeProgram(dir, path, main string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+path+"\n\ngo 1.26.0\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644)
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t") + "\n"
}

const appMain = `package main

import (
	"fmt"

	"github.com/danielgtaylor/huma/v2"

	oncehuma "github.com/once-go/once/adapters/huma"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/once"
)

func main() {
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	if err := oncehuma.Register[once.ID](r); err != nil {
		panic(err)
	}
	var _ = k8slease.New
	fmt.Println("an ID:", once.FromUint64(14702248913163780097))
}
`

const probeMain = `package main

import (
	_ "github.com/once-go/once/adapters/gorm"
	_ "github.com/once-go/once/lease"
	_ "github.com/once-go/once/lease/redislease"
	_ "github.com/once-go/once/lease/sqllease"
	_ "github.com/once-go/once/nonce"
	_ "github.com/once-go/once/once"
)

func main() {}
`
