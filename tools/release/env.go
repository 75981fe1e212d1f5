package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// isolatedEnv is the environment of a go command that sees the released
// modules only through the proxy at proxyDir: no workspace, its own
// GOPATH and module cache under home, and the proxy first, then the
// developer's module cache (itself a valid file:// proxy: a clean cache
// need not download the world), then the public proxy. The checksum
// database is not asked about this repository's modules (the proxy's
// zips are not published yet).
func isolatedEnv(home, proxyDir string) ([]string, error) {
	cache, err := goEnv("GOMODCACHE")
	if err != nil {
		return nil, err
	}
	fallback := os.Getenv("RELEASE_FALLBACK_PROXY")
	if fallback == "" {
		fallback = "https://proxy.golang.org"
	}
	gopath := filepath.Join(home, "gopath")
	set := map[string]string{
		"GOWORK":      "off",
		"GOPATH":      gopath,
		"GOMODCACHE":  filepath.Join(gopath, "pkg", "mod"),
		"GOBIN":       "",
		"GOFLAGS":     "-modcacherw",
		"GOPROXY":     "file://" + filepath.ToSlash(proxyDir) + ",file://" + filepath.ToSlash(filepath.Join(cache, "cache", "download")) + "," + fallback,
		"GONOSUMDB":   rootPath,
		"GONOPROXY":   "",
		"GOPRIVATE":   "",
		"GOTOOLCHAIN": "local",
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env, nil
}

// runIn runs name args in dir with env and returns its standard output; a
// failure carries the command line and its standard error.
func runIn(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s (in %s): %v\n%s%s", name, strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
