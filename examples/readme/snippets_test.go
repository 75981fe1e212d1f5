package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnippetParsers checks the region and block readers on small inputs,
// including the mistakes TestREADMESnippets must report.
func TestSnippetParsers(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\n// readme:begin a\nfunc f() {\n\t// readme:begin b\n\tx := 1\n\n\t_ = x\n\t// readme:end b\n}\n\n// readme:end a\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644))
	regions, err := readRegions(dir)
	require.NoError(t, err)
	assert.Equal(t, "func f() {\n\tx := 1\n\n\t_ = x\n}", regions["a"], "region a (inner markers dropped)")
	assert.Equal(t, "x := 1\n\n_ = x", regions["b"], "region b (common tab removed)")
	for _, bad := range []string{
		"// readme:begin a\n", // not ended
		"// readme:end a\n",   // not begun
		"// readme:begin a\n// readme:end a\n// readme:begin a\n// readme:end a\n", // twice
		"// readme:begin a b\n// readme:end a b\n",                                 // not a name
	} {
		d := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(d, "x.go"), []byte("package x\n"+bad), 0o644))
		_, err := readRegions(d)
		assert.Error(t, err, "readRegions accepted %q", bad)
	}

	// A region shared by two programs: equal copies are one region,
	// copies that differ are an error naming both places.
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "y.go"), []byte("package y\n\n// readme:begin b\nx := 1\n\n_ = x\n// readme:end b\n"), 0o644))
	if both, err := readRegions(dir, other); assert.NoError(t, err, "readRegions of two programs sharing region b") {
		assert.Equal(t, regions["b"], both["b"], "readRegions of two programs sharing region b")
	}
	require.NoError(t, os.WriteFile(filepath.Join(other, "y.go"), []byte("package y\n\n// readme:begin b\nx := 2\n// readme:end b\n"), 0o644))
	if _, err := readRegions(dir, other); assert.Error(t, err, "readRegions of two programs whose region b differs") {
		assert.Contains(t, err.Error(), "region b differs between", "readRegions of two programs whose region b differs")
	}

	md := "# T\n\n<!-- readme:a -->\n```go\nx := 1\n```\n\n```go\ny := 2\n```\n\n```sh\nls\n```\n<!-- readme:b -->\ntext\n"
	if _, err := goBlocks(md); assert.Error(t, err, "goBlocks: a marker before prose") {
		assert.Contains(t, err.Error(), "readme:b", "goBlocks: a marker before prose: want an error naming readme:b")
	}
	blocks, err := goBlocks(strings.TrimSuffix(md, "<!-- readme:b -->\ntext\n"))
	require.NoError(t, err)
	if assert.Len(t, blocks, 2, "goBlocks") {
		assert.Equal(t, "a", blocks[0].name, "goBlocks: first block's name")
		assert.Equal(t, "x := 1", blocks[0].text, "goBlocks: first block's text")
		assert.Equal(t, 5, blocks[0].line, "goBlocks: first block's line")
		assert.Empty(t, blocks[1].name, "goBlocks: second block's name")
		assert.Equal(t, "y := 2", blocks[1].text, "goBlocks: second block's text")
	}
	_, err = goBlocks("<!-- readme:a -->\n```go\nx\n")
	assert.Error(t, err, "goBlocks accepted an unclosed fence")
}

var (
	beginRe  = regexp.MustCompile(`^\s*// readme:begin (.*)$`)
	endRe    = regexp.MustCompile(`^\s*// readme:end (.*)$`)
	markerRe = regexp.MustCompile(`^<!-- readme:(.*) -->$`)
	nameRe   = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
)

// readRegions returns the regions of the non-test Go files in dirs by name,
// each without its marker lines (also those of regions nested in it), its
// common leading tabs and its leading and trailing blank lines. A region
// of one name may appear in several directories (programs that share
// code): its copies must be equal.
func readRegions(dirs ...string) (map[string]string, error) {
	regions := map[string]string{}
	where := map[string]string{}
	for _, dir := range dirs {
		rs, err := readDirRegions(dir)
		if err != nil {
			return nil, err
		}
		for name, text := range rs {
			if prev, ok := regions[name]; ok && prev != text {
				return nil, fmt.Errorf("region %s differs between %s and %s: %s", name, where[name], dir, firstDifference(text, prev))
			}
			regions[name], where[name] = text, dir
		}
	}
	return regions, nil
}

// readDirRegions is readRegions for one directory, where each name begins
// once.
func readDirRegions(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	regions := map[string]string{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		open := map[string][]string{} // regions begun and not yet ended
		for n, line := range strings.Split(string(src), "\n") {
			if m := beginRe.FindStringSubmatch(line); m != nil {
				name := m[1]
				if !nameRe.MatchString(name) {
					return nil, fmt.Errorf("%s:%d: region name %q: want lowercase letters, digits, - and _", file, n+1, name)
				}
				if _, dup := regions[name]; dup || open[name] != nil {
					return nil, fmt.Errorf("%s:%d: region %s begins twice", file, n+1, name)
				}
				open[name] = []string{}
				continue
			}
			if m := endRe.FindStringSubmatch(line); m != nil {
				name := m[1]
				lines, ok := open[name]
				if !ok {
					return nil, fmt.Errorf("%s:%d: region %q ends without a begin", file, n+1, name)
				}
				delete(open, name)
				regions[name] = dedent(strings.Join(lines, "\n"))
				continue
			}
			for name := range open {
				open[name] = append(open[name], line)
			}
		}
		for name := range open {
			return nil, fmt.Errorf("%s: region %s has no // readme:end %s", file, name, name)
		}
	}
	return regions, nil
}

// block is a ```go block of the README.
type block struct {
	name string // from <!-- readme:NAME --> on the line before the fence; "" without
	line int    // of the block's first line
	text string
}

// goBlocks returns the ```go blocks of a Markdown text. A readme marker that
// is not directly followed by a ```go fence is an error.
func goBlocks(md string) ([]block, error) {
	var blocks []block
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		if m := markerRe.FindStringSubmatch(line); m != nil {
			if i+1 >= len(lines) || !isGoFence(lines[i+1]) {
				return nil, fmt.Errorf("line %d: <!-- readme:%s --> is not directly followed by a ```go line", i+1, m[1])
			}
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "```") {
			continue
		}
		// A fence: find its end; keep it if it is a go block.
		start := i
		end := start + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: code block never closed", start+1)
		}
		i = end
		if !isGoFence(line) {
			continue
		}
		b := block{line: start + 2, text: strings.Join(lines[start+1:end], "\n")}
		if start > 0 {
			if m := markerRe.FindStringSubmatch(strings.TrimRight(lines[start-1], " \t\r")); m != nil {
				b.name = m[1]
			}
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func isGoFence(line string) bool {
	f := strings.Fields(line)
	return len(f) > 0 && f[0] == "```go"
}

// dedent removes the tabs that all non-blank lines of s start with, trailing
// spaces, and leading and trailing blank lines.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	common := -1
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		lines[i] = l
		if l == "" {
			continue
		}
		tabs := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || tabs < common {
			common = tabs
		}
	}
	for i, l := range lines {
		if l != "" {
			lines[i] = l[common:]
		}
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		gl, wl := "(end of block)", "(end of region)"
		if i < len(g) {
			gl = strconv.Quote(g[i])
		}
		if i < len(w) {
			wl = strconv.Quote(w[i])
		}
		if gl != wl {
			return fmt.Sprintf("line %d of the block is %s, the region has %s", i+1, gl, wl)
		}
	}
	return "(no difference found)"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
