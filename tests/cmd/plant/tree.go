package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repoRoot is the repository around the working directory.
func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in the repository (git rev-parse: %v)", err)
	}
	root := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(root, "tests", "cmd", "plant")); err != nil {
		return "", fmt.Errorf("%s is not the once repository", root)
	}
	return root, nil
}

// copyTree replaces dst by a copy of root's files as git sees them
// (tracked and untracked, not ignored): the working tree, uncommitted
// changes included. dst keeps its path from run to run, so the build cache
// serves every package a bug does not touch.
func copyTree(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v", err)
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	for _, name := range bytes.Split(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		src := filepath.Join(root, string(name))
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := copyFile(src, filepath.Join(dst, string(name)), fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, perm os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, perm)
}

// applyBug plants b in the copy at tree. Every patch's Old must occur
// exactly once in its file.
func applyBug(root, tree string, b Bug) error {
	if len(b.Patch) == 0 {
		return fmt.Errorf("no patch")
	}
	for _, p := range b.Patch {
		name := filepath.Join(tree, filepath.FromSlash(p.File))
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("stale catalogue: %v", err)
		}
		if n := strings.Count(string(data), p.Old); n != 1 {
			return fmt.Errorf("stale catalogue: %s holds the patch's text %d times, want once: %.60q", p.File, n, p.Old)
		}
		if err := os.WriteFile(name, []byte(strings.Replace(string(data), p.Old, p.New, 1)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// restoreBug puts back the files b patched.
func restoreBug(root, tree string, b Bug) error {
	for _, p := range b.Patch {
		src := filepath.Join(root, filepath.FromSlash(p.File))
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		if err := copyFile(src, filepath.Join(tree, filepath.FromSlash(p.File)), fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
