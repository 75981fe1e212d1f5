package main

import (
	"fmt"
	"path/filepath"
)

// regionDirs hold the programs the README's Go blocks come from: this one,
// and the API examples, modules of their own that CI builds and tests
// (.ci/run).
var regionDirs = []string{".", filepath.Join("..", "huma"), filepath.Join("..", "graphql", "ids")}

// readAllRegions returns the regions of every directory of regionDirs; a
// name used in two of them is an error.
func readAllRegions() (map[string]string, error) {
	all := map[string]string{}
	for _, dir := range regionDirs {
		regions, err := readRegions(dir)
		if err != nil {
			return nil, err
		}
		for name, text := range regions {
			if _, dup := all[name]; dup {
				return nil, fmt.Errorf("%s: region %s is also in another directory", dir, name)
			}
			all[name] = text
		}
	}
	return all, nil
}
