package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// rootPath is the root module's path; every module of the repository is
// this path or below it.
const rootPath = "github.com/once-go/once"

// errVersions marks a malformed versions.txt.
var errVersions = errors.New("versions.txt")

// parseVersions parses versions.txt: one "MODULE VERSION" a line, blank
// lines and lines starting with # ignored. Every module is the root or
// below it, listed once, with a canonical semantic version; all of them
// have the same version (the modules are released together).
func parseVersions(data []byte) ([]module.Version, error) {
	var vs []module.Version
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%w:%d: want \"MODULE VERSION\", have %q", errVersions, n, short(line))
		}
		path, v := f[0], f[1]
		if err := module.CheckPath(path); err != nil {
			return nil, fmt.Errorf("%w:%d: %v", errVersions, n, err)
		}
		if path != rootPath && !strings.HasPrefix(path, rootPath+"/") {
			return nil, fmt.Errorf("%w:%d: %s is not %s or below it", errVersions, n, path, rootPath)
		}
		if err := checkVersion(v); err != nil {
			return nil, fmt.Errorf("%w:%d: %v", errVersions, n, err)
		}
		if seen[path] {
			return nil, fmt.Errorf("%w:%d: %s listed twice", errVersions, n, path)
		}
		seen[path] = true
		if len(vs) > 0 && v != vs[0].Version {
			return nil, fmt.Errorf("%w:%d: %s at %s, %s at %s: the modules are released together, at one version", errVersions, n, path, v, vs[0].Path, vs[0].Version)
		}
		vs = append(vs, module.Version{Path: path, Version: v})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("%w: lists no module", errVersions)
	}
	if !seen[rootPath] {
		return nil, fmt.Errorf("%w: does not list the root module %s", errVersions, rootPath)
	}
	return vs, nil
}

// checkVersion accepts a canonical semantic version below v2 (a v2 would
// change every module path).
func checkVersion(v string) error {
	if !semver.IsValid(v) || semver.Canonical(v) != v {
		return fmt.Errorf("version %q is not a canonical semantic version (vMAJOR.MINOR.PATCH)", short(v))
	}
	if semver.Build(v) != "" {
		return fmt.Errorf("version %q has build metadata, which module versions cannot carry", v)
	}
	if m := semver.Major(v); m != "v0" && m != "v1" {
		return fmt.Errorf("version %s: major version %s needs a /%s suffix on every module path", v, m, m)
	}
	return nil
}

// formatVersions writes vs in versions.txt's form.
func formatVersions(vs []module.Version) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		fmt.Fprintf(&b, "%s %s\n", v.Path, v.Version)
	}
	return b.Bytes()
}

// short quotes at most 40 bytes of s.
func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// dirOf is the directory of module path, relative to the repository root
// ("." for the root).
func dirOf(path string) string {
	if path == rootPath {
		return "."
	}
	return strings.TrimPrefix(path, rootPath+"/")
}

// isSibling reports whether path is a module of this repository.
func isSibling(path string) bool {
	return path == rootPath || strings.HasPrefix(path, rootPath+"/")
}
