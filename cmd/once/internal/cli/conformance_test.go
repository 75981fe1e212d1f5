package cli

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// vectors is the part of testdata/conformance.json the CLI tests use.
type vectors struct {
	Formats     []map[string]string `json:"formats"`
	Prefixed    []map[string]string `json:"prefixed"`
	InvalidText []struct {
		Prefix string   `json:"prefix"`
		Format string   `json:"format"`
		Inputs []string `json:"inputs"`
	} `json:"invalid_text"`
	NormalizeText []struct {
		Prefix    string `json:"prefix"`
		Format    string `json:"format"`
		Input     string `json:"input"`
		Canonical string `json:"canonical"`
	} `json:"normalize_text"`
	Keys []struct {
		BaseKeyHex string              `json:"base_key_hex"`
		Block64    []map[string]string `json:"block64"`
	} `json:"keys"`
}

func loadVectors(t *testing.T) *vectors {
	t.Helper()
	b, err := os.ReadFile("../../../../testdata/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	v := new(vectors)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
	if len(v.Formats) == 0 || len(v.Prefixed) == 0 || len(v.InvalidText) == 0 || len(v.NormalizeText) == 0 || len(v.Keys) == 0 {
		t.Fatal("conformance.json: a vector group is empty")
	}
	return v
}

var textFormats = []string{"url64", "hex", "hex32", "signed", "unsigned"}

// intFlag returns the flags that make VALUEs in format f parse.
func intFlag(f string) []string {
	if f == "signed" || f == "unsigned" {
		return []string{"--int"}
	}
	return nil
}

// column returns field f of every vector.
func column(vs []map[string]string, f string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v[f]
	}
	return out
}

// TestConvertFormats converts every format vector from every format to
// every format, as arguments and on standard input.
func TestConvertFormats(t *testing.T) {
	v := loadVectors(t)
	for _, from := range textFormats {
		for _, to := range textFormats {
			args := append(append([]string{"convert", "--to", to}, intFlag(from)...), "--")
			got := mustCLI(t, "", append(args, column(v.Formats, from)...)...)
			equalLines(t, from+" -> "+to, got, column(v.Formats, to))
		}
		got := mustCLI(t, strings.Join(column(v.Formats, from), "\n")+"\n",
			append([]string{"convert", "--to", "hex"}, intFlag(from)...)...)
		equalLines(t, from+" -> hex (stdin)", got, column(v.Formats, "hex"))
	}
}

// TestConvertPrefixed converts every prefixed vector between all formats
// with --prefix.
func TestConvertPrefixed(t *testing.T) {
	v := loadVectors(t)
	byPrefix := map[string][]map[string]string{}
	for _, p := range v.Prefixed {
		byPrefix[p["prefix"]] = append(byPrefix[p["prefix"]], p)
	}
	for prefix, vs := range byPrefix {
		for _, from := range textFormats {
			in := column(vs, from)
			if from == "unsigned" { // the vectors spell unsigned without the prefix
				for i := range in {
					in[i] = prefix + in[i]
				}
			}
			for _, to := range []string{"url64", "hex", "hex32", "signed"} {
				args := append([]string{"convert", "--prefix", prefix, "--to", to}, intFlag(from)...)
				got := mustCLI(t, "", append(append(args, "--"), in...)...)
				equalLines(t, prefix+" "+from+" -> "+to, got, column(vs, to))
			}
			got := mustCLI(t, "", append(append([]string{"convert", "--prefix", prefix, "--to", "unsigned"}, intFlag(from)...), append([]string{"--"}, in...)...)...)
			want := column(vs, "unsigned")
			for i := range want {
				want[i] = prefix + want[i]
			}
			equalLines(t, prefix+" "+from+" -> unsigned", got, want)
		}
	}
}

// TestConvertInvalid passes every invalid vector between two valid values:
// exit 1, one stderr line naming each invalid value, the valid ones printed
// in order.
func TestConvertInvalid(t *testing.T) {
	v := loadVectors(t)
	for _, g := range v.InvalidText {
		flags := append([]string{"convert", "--to", g.Format, "--prefix", g.Prefix}, intFlag(g.Format)...)
		first, last := g.Prefix+"AAAAAAAAAAE", g.Prefix+"zAjhfZyAAAE"
		want := []string{g.Prefix + "AAAAAAAAAAE", g.Prefix + "zAjhfZyAAAE"}
		if intFlag(g.Format) != nil {
			first, last = g.Prefix+"1", g.Prefix+"-3744495160545771519"
			want = []string{first, last}
		}
		for _, in := range g.Inputs {
			r := cli("", append(flags, "--", first, in, last)...)
			if r.code != 1 {
				t.Errorf("%s %q: exit %d, want 1", g.Format, in, r.code)
			}
			equalLines(t, g.Format+" "+strconv.Quote(in)+" stdout", r.lines(), want)
			errs := r.errLines()
			if len(errs) != 1 || !strings.HasPrefix(errs[0], "once convert: ") || !strings.Contains(errs[0], quoteValue(in)) {
				t.Errorf("%s %q: stderr %q, want one line naming the value", g.Format, in, r.stderr)
			}
		}
		// All at once, in order.
		args := append(append([]string{}, flags...), "--", first)
		args = append(append(args, g.Inputs...), last)
		r := cli("", args...)
		if r.code != 1 || len(r.errLines()) != len(g.Inputs) {
			t.Errorf("%s all inputs: %v\nwant exit 1 and %d error lines", g.Format, r, len(g.Inputs))
		}
		equalLines(t, g.Format+" all inputs", r.lines(), want)
		for i, line := range r.errLines() {
			if i < len(g.Inputs) && !strings.Contains(line, quoteValue(g.Inputs[i])) {
				t.Errorf("%s: error line %d = %q, want it to name %q", g.Format, i+1, line, g.Inputs[i])
			}
		}
	}
}

// TestConvertNormalize checks every normalisation vector.
func TestConvertNormalize(t *testing.T) {
	v := loadVectors(t)
	for _, n := range v.NormalizeText {
		args := append([]string{"convert", "--prefix", n.Prefix, "--to", n.Format}, intFlag(n.Format)...)
		got := mustCLI(t, "", append(args, "--", n.Input)...)
		equalLines(t, n.Input, got, []string{n.Canonical})
	}
}

// maskCase is one 64-bit masked vector group: a key and a cipher.
type maskCase struct {
	keyHex, cipher string
	plain, masked  []string // hex
	url64Bf        []string // blowfish only: url64 masked spelling
}

func maskCases(t *testing.T) []maskCase {
	v := loadVectors(t)
	var cs []maskCase
	for _, k := range v.Keys {
		for _, c := range []string{"blowfish", "speck", "des3"} {
			mc := maskCase{keyHex: k.BaseKeyHex, cipher: c, plain: column(k.Block64, "plain"), masked: column(k.Block64, c)}
			if c == "blowfish" {
				mc.url64Bf = column(k.Block64, "blowfish_url64")
			}
			if len(mc.plain) == 0 || mc.masked[0] == "" {
				t.Fatalf("conformance.json: no %s vectors", c)
			}
			cs = append(cs, mc)
		}
	}
	return cs
}

// TestMaskVectors masks and unmasks every 64-bit masked vector with each
// cipher, the key given as --key-hex and as --key-env.
func TestMaskVectors(t *testing.T) {
	for _, mc := range maskCases(t) {
		raw, err := decodeKeyHex(mc.keyHex)
		if err != nil {
			t.Fatal(err)
		}
		keys := [][]string{{"--key-hex", mc.keyHex}}
		// An environment variable cannot hold a zero byte (the second
		// conformance key is 00 01 02 ...): such keys need --key-hex.
		if !strings.Contains(string(raw), "\x00") {
			t.Setenv("ONCE_TEST_KEY", string(raw))
			keys = append(keys, []string{"--key-env", "ONCE_TEST_KEY"})
		}
		for _, key := range keys {
			name := mc.cipher + " " + key[0]
			flags := append([]string{"--cipher", mc.cipher, "--to", "hex"}, key...)
			got := mustCLI(t, "", append(append([]string{"mask"}, flags...), mc.plain...)...)
			equalLines(t, name+" mask", got, mc.masked)
			got = mustCLI(t, "", append(append([]string{"unmask"}, flags...), mc.masked...)...)
			equalLines(t, name+" unmask", got, mc.plain)
			if mc.url64Bf != nil {
				got = mustCLI(t, "", append([]string{"mask", "--cipher", "blowfish", "--to", "url64"}, append(key, mc.plain...)...)...)
				equalLines(t, name+" mask url64", got, mc.url64Bf)
				got = mustCLI(t, "", append([]string{"unmask", "--to", "hex"}, append(key, mc.url64Bf...)...)...) // blowfish is the default
				equalLines(t, name+" unmask url64", got, mc.plain)
			}
		}
	}
}

// TestMaskPrefixedInt masks stored decimals with a prefix and back, and
// reports invalid values among valid ones.
func TestMaskPrefixedInt(t *testing.T) {
	mc := maskCases(t)[1] // speck
	stored := make([]string, len(mc.plain))
	for i, p := range mc.plain {
		u, _ := strconv.ParseUint(p, 16, 64)
		stored[i] = "t_" + strconv.FormatInt(int64(u), 10)
	}
	flags := []string{"--cipher", "speck", "--key-hex", mc.keyHex, "--prefix", "t_"}
	masked := mustCLI(t, "", append(append([]string{"mask", "--int", "--to", "hex32"}, flags...), append([]string{"--"}, stored...)...)...)
	back := mustCLI(t, strings.Join(masked, "\n"), append([]string{"unmask", "--to", "signed"}, flags...)...)
	equalLines(t, "mask/unmask round trip", back, stored)

	r := cli("", append(append([]string{"unmask", "--to", "signed"}, flags...), masked[0], "t_nope", masked[1])...)
	if r.code != 1 || !strings.Contains(r.stderr, `"t_nope"`) || len(r.errLines()) != 1 {
		t.Errorf("invalid masked value: %v", r)
	}
	equalLines(t, "invalid masked value", r.lines(), stored[:2])
}
