// Command release keeps the modules of github.com/once-go/once in step and
// tries a release before it is tagged. Run it from the repository root as
//
//	go -C tools run ./release COMMAND
//
// Commands:
//
//	bump VERSION  set every published module's version in versions.txt to
//	              VERSION and every go.mod's require of a sibling to it
//	check         versions.txt, the go.mod requires, replace directives and
//	              go.work (if present) agree; exits 1 naming each problem
//	sums          write into every module's go.sum the lines of its sibling
//	              modules at versions.txt's versions, hashed from the zips a
//	              release of the working tree would publish (dependency order)
//	proxy DIR     write a file-based module proxy (GOPROXY=file://DIR) of
//	              the published modules at versions.txt's versions, built
//	              from the working tree as a release would publish them
//	tidy [-w] [DIR...]
//	              go mod tidy -diff in every module (or those in DIRs)
//	              against such a proxy, ignoring the go.sum lines of the
//	              github.com/once-go modules; -w: go mod tidy, writing
//	              go.mod and go.sum back (the way to tidy in the tree)
//	dryrun        install cmd/once as the README says (each go install
//	              line) and build a program on the root,
//	              adapters/huma and lease/k8slease from such a proxy, with
//	              a clean GOPATH and module cache and GOWORK=off
//
// RELEASING.md at the repository root describes a release step by step.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

const usage = `usage: go -C tools run ./release COMMAND
commands: bump VERSION | check | sums | proxy DIR | tidy [-w] [DIR...] | dryrun`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New(usage)

func run(args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	cmd, args := args[0], args[1:]
	want := map[string]int{"bump": 1, "check": 0, "sums": 0, "proxy": 1, "tidy": 0, "dryrun": 0}
	n, ok := want[cmd]
	if !ok || cmd != "tidy" && len(args) != n {
		return errUsage
	}
	switch cmd {
	case "bump":
		return bump(root, args[0])
	case "check":
		t, err := loadTree(root)
		if err != nil {
			return err
		}
		if probs := t.check(); len(probs) > 0 {
			for _, p := range probs {
				fmt.Fprintln(os.Stderr, "release check:", p)
			}
			return fmt.Errorf("check: %d problem(s); see RELEASING.md", len(probs))
		}
		fmt.Printf("release check: %d modules, %d published at %s: ok\n", len(t.mods), len(t.versions), t.versions[0].Version)
		return nil
	case "sums":
		return writeSums(root)
	case "proxy":
		dir, err := filepath.Abs(args[0])
		if err != nil {
			return err
		}
		_, err = buildProxy(root, dir)
		return err
	case "tidy":
		write := len(args) > 0 && args[0] == "-w"
		if write {
			args = args[1:]
		}
		for i, a := range args {
			args[i] = filepath.ToSlash(filepath.Clean(a))
		}
		return tidyAll(root, write, args)
	default:
		return dryrun(root)
	}
}
