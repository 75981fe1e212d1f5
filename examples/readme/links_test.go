package main

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's root directory, seen from this package.
var repoRoot = filepath.Join("..", "..")

// docFiles returns the documentation pages under root: README.md,
// ARCHITECTURE.md and CONTRIBUTING.md where they exist, and every Markdown
// file under docs/.
func docFiles(root string) ([]string, error) {
	var files []string
	for _, name := range []string{"README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"} {
		path := filepath.Join(root, name)
		if _, err := os.Stat(path); err == nil {
			files = append(files, path)
		} else if name == "README.md" {
			return nil, err
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// TestDocLinks checks every relative link of the documentation pages (see
// docFiles): its file or directory exists, and its #fragment, if any,
// names a heading of the Markdown file it points to.
func TestDocLinks(t *testing.T) {
	files, err := docFiles(repoRoot)
	require.NoError(t, err)
	checked := 0
	for _, path := range files {
		md, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, l := range mdLinks(string(md)) {
			_, ok, err := resolveLink(path, l.target)
			if !ok {
				continue // an absolute URL
			}
			checked++
			assert.NoError(t, err, "%s:%d: link %q", path, l.line, l.target)
		}
	}
	assert.NotZero(t, checked, "no relative links found: the link reader is broken")
}

// TestLinkReader checks mdLinks, resolveLink and the heading anchors on
// small inputs, including the broken links TestDocLinks must report.
func TestLinkReader(t *testing.T) {
	md := "# Title\n\nSee [a](b.md#two-words) and [c](https://x.example/y) `[not](a-link.md)`.\n\n" +
		"```go\n[also](not-a-link.md)\n```\n\n## Two words\n\n### Unset IDs and `\"\"` in JSON\n\n## Two words\n[self](#two-words-1)\n"
	links := mdLinks(md)
	if assert.Len(t, links, 3, "mdLinks") {
		assert.Equal(t, link{"b.md#two-words", 3}, links[0], "mdLinks: first link")
		assert.Equal(t, "https://x.example/y", links[1].target, "mdLinks: second link")
		assert.Equal(t, link{"#two-words-1", 14}, links[2], "mdLinks: third link")
	}
	assert.Equal(t, map[string]bool{"title": true, "two-words": true, "two-words-1": true, "unset-ids-and--in-json": true}, anchors(md), "anchors")

	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	for path, text := range map[string]string{a: md, b: "# B\n\n## Two words\n"} {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	for target, bad := range map[string]bool{
		"b.md": false, "b.md#two-words": false, "#two-words-1": false, "./b.md#b": false, ".": false,
		"c.md": true, "b.md#three-words": true, "#nowhere": true, "b.md#Two-words": true,
	} {
		_, ok, err := resolveLink(a, target)
		assert.True(t, ok, "resolveLink(%q): not taken for a relative link", target)
		assert.Equal(t, bad, err != nil, "resolveLink(%q): error %v; want an error: %v", target, err, bad)
	}
	_, ok, _ := resolveLink(a, "mailto:x@example.com")
	assert.False(t, ok, "resolveLink took a mailto: URL for a relative link")
}

// A link is a Markdown inline link's target and the line it is on.
type link struct {
	target string
	line   int
}

var (
	linkRe       = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	codeSpanRe   = regexp.MustCompile("`[^`]*`")
	headingRe    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	schemeRe     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	anchorDropRe = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// mdLinks returns the inline links of a Markdown text, outside fenced code
// blocks and code spans.
func mdLinks(md string) []link {
	var out []link
	fence := false
	for n, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		line = codeSpanRe.ReplaceAllString(line, "")
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			out = append(out, link{target: m[1], line: n + 1})
		}
	}
	return out
}

// anchors returns the fragment names of the headings of a Markdown text,
// as GitHub makes them: lowercase, code marks and punctuation but - and _
// dropped, spaces as -, and -1, -2, ... appended to repeats.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		m := headingRe.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		a := strings.Map(unicode.ToLower, m[1])
		a = anchorDropRe.ReplaceAllString(a, "")
		a = strings.ReplaceAll(a, " ", "-")
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

// resolveLink resolves target, a link of the Markdown file at from. ok is
// false for an absolute URL (a scheme such as https: or mailto:), which is
// not checked; otherwise err says what is wrong: the file or directory is
// missing, or the fragment names no heading of the Markdown file. path is
// the file the link points to.
func resolveLink(from, target string) (path string, ok bool, err error) {
	if schemeRe.MatchString(target) {
		return "", false, nil
	}
	file, fragment, _ := strings.Cut(target, "#")
	file, err = url.PathUnescape(file)
	if err != nil {
		return "", true, err
	}
	path = from
	if file != "" {
		path = filepath.Join(filepath.Dir(from), filepath.FromSlash(file))
	}
	info, err := os.Stat(path)
	if err != nil {
		return path, true, err
	}
	if fragment == "" {
		return path, true, nil
	}
	if info.IsDir() || !strings.HasSuffix(path, ".md") {
		return path, true, fmt.Errorf("#%s: %s is not a Markdown file", fragment, path)
	}
	md, err := os.ReadFile(path)
	if err != nil {
		return path, true, err
	}
	if !anchors(string(md))[fragment] {
		return path, true, fmt.Errorf("%s has no heading #%s", path, fragment)
	}
	return path, true, nil
}
