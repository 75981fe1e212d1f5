package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

// release is what a release of the working tree publishes: for each
// published module its go.sum (with its siblings' lines filled in) and the
// hashes of its zip and go.mod.
type release struct {
	tree   *tree
	files  map[string][]string
	goSum  map[string][]byte // by module path
	zipSum map[string]string // h1: of the module zip
	modSum map[string]string // h1: of the go.mod
}

// newRelease computes, in dependency order, the go.sum every published
// module would be released with and the hashes of its zip, writing the
// zips to zipDir when it is not empty.
func newRelease(root, zipDir string) (*release, error) {
	t, err := loadTree(root)
	if err != nil {
		return nil, err
	}
	if probs := t.check(); len(probs) > 0 {
		return nil, fmt.Errorf("the tree does not pass release check: %s (and %d more)", probs[0], len(probs)-1)
	}
	files, err := t.files()
	if err != nil {
		return nil, err
	}
	r := &release{tree: t, files: files, goSum: map[string][]byte{}, zipSum: map[string]string{}, modSum: map[string]string{}}
	order, err := t.order()
	if err != nil {
		return nil, err
	}
	for _, m := range order {
		if err := r.add(m, zipDir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// sumFor returns m's go.sum as in the tree with the lines of siblings
// replaced by those of the siblings it requires (directly or not) at their
// versions, as hashed in r. Every sibling in the closure must be in r.
func (r *release) sumFor(m *mod) ([]byte, error) {
	old, err := os.ReadFile(r.tree.abs(m.dir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var lines []string
	for _, v := range r.tree.siblingClosure(m) {
		zs, ok := r.zipSum[v.Path]
		if !ok {
			return nil, fmt.Errorf("%s requires %s, whose zip is not hashed yet (not published, or a cycle)", m.path(), v.Path)
		}
		lines = append(lines, v.Path+" "+v.Version+" "+zs, v.Path+" "+v.Version+"/go.mod "+r.modSum[v.Path])
	}
	return mergeSum(old, lines), nil
}

// add zips published module m (its go.sum from sumFor) and records its
// hashes.
func (r *release) add(m *mod, zipDir string) error {
	sum, err := r.sumFor(m)
	if err != nil {
		return err
	}
	v, _ := r.tree.published(m.path())
	mv := module.Version{Path: m.path(), Version: v}
	var zf []zip.File
	for _, f := range r.files[m.dir] {
		zf = append(zf, &treeFile{name: f, abs: r.tree.abs(m.dir, f)})
	}
	// As the go command zips a module in a subdirectory of its repository:
	// with the repository's LICENSE when it has none of its own.
	if m.dir != "." && !hasFile(r.files[m.dir], "LICENSE") && hasFile(r.files["."], "LICENSE") {
		zf = append(zf, &treeFile{name: "LICENSE", abs: r.tree.abs("LICENSE")})
	}
	if !hasFile(r.files[m.dir], "go.sum") && len(sum) > 0 {
		zf = append(zf, &treeFile{name: "go.sum"})
	}
	for _, f := range zf {
		if tf := f.(*treeFile); tf.name == "go.sum" {
			tf.data, tf.abs = sum, ""
		}
	}
	var buf bytes.Buffer
	if err := zip.Create(&buf, mv, zf); err != nil {
		return fmt.Errorf("zip of %s: %v", mv, err)
	}
	tmp, err := os.CreateTemp("", "release-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	tmp.Close()
	zs, err := dirhash.HashZip(tmp.Name(), dirhash.Hash1)
	if err != nil {
		return err
	}
	ms, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(m.data)), nil
	})
	if err != nil {
		return err
	}
	r.goSum[mv.Path], r.zipSum[mv.Path], r.modSum[mv.Path] = sum, zs, ms
	if zipDir == "" {
		return nil
	}
	return writeProxyEntry(zipDir, mv, m.data, buf.Bytes())
}

// writeProxyEntry writes mv's list, .info, .mod and .zip in the layout of
// a GOPROXY=file:// directory.
func writeProxyEntry(dir string, mv module.Version, modData, zipData []byte) error {
	esc, err := module.EscapePath(mv.Path)
	if err != nil {
		return err
	}
	ev, err := module.EscapeVersion(mv.Version)
	if err != nil {
		return err
	}
	d := filepath.Join(dir, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mv.Version, time.Now().UTC().Truncate(time.Second)})
	for name, data := range map[string][]byte{
		"list":       []byte(mv.Version + "\n"),
		ev + ".info": info,
		ev + ".mod":  modData,
		ev + ".zip":  zipData,
	} {
		if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// buildProxy writes the proxy of the working tree's release to dir.
func buildProxy(root, dir string) (*release, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, err := newRelease(root, dir)
	if err != nil {
		return nil, err
	}
	for _, v := range r.tree.versions {
		fmt.Printf("proxy: %s %s %s\n", v.Path, v.Version, r.zipSum[v.Path])
	}
	return r, nil
}

// contentID is a short name of the release's content: 12 hex digits of
// the SHA-256 of every module's path, version and zip hash.
func (r *release) contentID() string {
	h := sha256.New()
	for _, v := range r.tree.versions {
		fmt.Fprintf(h, "%s %s %s\n", v.Path, v.Version, r.zipSum[v.Path])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// writeSums writes into every module's go.sum (published or not) its
// siblings' lines as a release of the working tree hashes them.
func writeSums(root string) error {
	r, err := newRelease(root, "")
	if err != nil {
		return err
	}
	for _, m := range r.tree.mods {
		sum, ok := r.goSum[m.path()]
		if !ok {
			if sum, err = r.sumFor(m); err != nil {
				return err
			}
		}
		name := r.tree.abs(m.dir, "go.sum")
		old, _ := os.ReadFile(name)
		if bytes.Equal(old, sum) {
			continue
		}
		if err := os.WriteFile(name, sum, 0o644); err != nil {
			return err
		}
		fmt.Printf("release sums: %s/go.sum\n", m.dir)
	}
	return nil
}

// mergeSum returns go.sum data old without its lines for modules of this
// repository, plus lines, in the go command's order (module path, then
// version, the zip's line before the go.mod's).
func mergeSum(old []byte, lines []string) []byte {
	type entry struct{ path, version, line string }
	var es []entry
	sc := bufio.NewScanner(bytes.NewReader(old))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		if len(f) != 3 || isSibling(f[0]) {
			continue
		}
		es = append(es, entry{f[0], f[1], line})
	}
	for _, l := range lines {
		f := strings.Fields(l)
		es = append(es, entry{f[0], f[1], l})
	}
	mods := make([]module.Version, len(es))
	idx := map[module.Version][]string{}
	for i, e := range es {
		mods[i] = module.Version{Path: e.path, Version: e.version}
		idx[mods[i]] = append(idx[mods[i]], e.line)
	}
	module.Sort(mods)
	var b bytes.Buffer
	done := map[module.Version]bool{}
	for _, m := range mods {
		if done[m] {
			continue
		}
		done[m] = true
		for _, l := range idx[m] {
			b.WriteString(l + "\n")
		}
	}
	return b.Bytes()
}

func hasFile(files []string, name string) bool {
	for _, f := range files {
		if f == name {
			return true
		}
	}
	return false
}

// treeFile is a file of a module zip: a file of the working tree, or data.
type treeFile struct {
	name string
	abs  string // "": data
	data []byte
}

func (f *treeFile) Path() string { return f.name }

func (f *treeFile) Lstat() (fs.FileInfo, error) {
	if f.abs != "" {
		return os.Lstat(f.abs)
	}
	return dataInfo{name: filepath.Base(f.name), size: int64(len(f.data))}, nil
}

func (f *treeFile) Open() (io.ReadCloser, error) {
	if f.abs != "" {
		return os.Open(f.abs)
	}
	return io.NopCloser(bytes.NewReader(f.data)), nil
}

type dataInfo struct {
	name string
	size int64
}

func (i dataInfo) Name() string       { return i.name }
func (i dataInfo) Size() int64        { return i.size }
func (i dataInfo) Mode() fs.FileMode  { return 0o644 }
func (i dataInfo) ModTime() time.Time { return time.Time{} }
func (i dataInfo) IsDir() bool        { return false }
func (i dataInfo) Sys() any           { return nil }

// goEnv returns the value of go env name.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
