package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
)

// rotationCase is one case of testdata/rotation.json: the Elixir
// libraries' masked values of the shared vectors' two keys, generation 1
// (usr_, K1) and generation 2 (usr2_, K2).
type rotationCase struct {
	Generation int    `json:"generation"`
	Unsigned   string `json:"unsigned"`
	URL64      string `json:"url64"`
	Hex        string `json:"hex"`
}

// rotationRing returns the cases of rotation.json and sets ONCE_TEST_RING
// to the keyring of its two generations (K1, K2 as hex: keys; current 2).
func rotationRing(t *testing.T) []rotationCase {
	t.Helper()
	b, err := os.ReadFile("../../../../testdata/rotation.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Generations []struct {
			BaseKeyHex string `json:"base_key_hex"`
		} `json:"generations"`
		Cases []rotationCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.Generations) != 2 || len(v.Cases) == 0 {
		t.Fatalf("rotation.json: %v", err)
	}
	t.Setenv("ONCE_TEST_RING", "1 hex:"+v.Generations[0].BaseKeyHex+"\n2 hex:"+v.Generations[1].BaseKeyHex+"\n")
	return v.Cases
}

// TestUnmaskKeyring: unmask reads both generations' spellings (the Elixir
// libraries' values) with --keyring-env and --keyring-file and prints each
// value's generation after a tab.
func TestUnmaskKeyring(t *testing.T) {
	cases := rotationRing(t)
	var in, want []string
	for _, c := range cases {
		in = append(in, c.URL64)
		want = append(want, "usr_"+c.Unsigned+"\t"+strconv.Itoa(c.Generation))
	}
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(os.Getenv("ONCE_TEST_RING")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ring := range [][]string{{"--keyring-env", "ONCE_TEST_RING"}, {"--keyring-file", path}} {
		got := mustCLI(t, strings.Join(in, "\n"), append([]string{"unmask", "--prefix", "usr_", "--to", "unsigned"}, ring...)...)
		equalLines(t, "unmask "+ring[0], got, want)
	}
	// Without --to: the stored value as the database holds it, then the
	// generation.
	c := cases[len(cases)-1]
	u, _ := strconv.ParseUint(c.Unsigned, 10, 64)
	got := mustCLI(t, "", "unmask", "--prefix", "usr_", "--keyring-env", "ONCE_TEST_RING", c.Hex)
	equalLines(t, "unmask hex", got, []string{strconv.FormatInt(int64(u), 10) + "\t2"})

	// A generation the keyring lacks is an error naming it.
	r := cli("", "unmask", "--prefix", "usr_", "--keyring-env", "ONCE_TEST_RING", "usr3_"+c.URL64[len("usr2_"):])
	if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, "generation 3") {
		t.Errorf("unmask of an unknown generation: %v", r)
	}
	// A key and a keyring together, or --cipher with a keyring, are usage errors.
	for _, args := range [][]string{
		{"unmask", "--keyring-env", "ONCE_TEST_RING", "--key-hex", strings.Repeat("ab", 32), "usr_x"},
		{"unmask", "--keyring-env", "ONCE_TEST_RING", "--cipher", "speck", "usr_x"},
		{"mask", "--keyring-env", "ONCE_TEST_RING", "--generation", "3", "1"},
		{"mask", "--key-hex", strings.Repeat("ab", 32), "--generation", "1", "1"},
	} {
		if r := cli("", args...); r.code != exitUsage {
			t.Errorf("%q: %v; want a usage error", args, r)
		}
	}
}

// TestMaskKeyring: mask writes the keyring's current generation, or
// --generation N's, spelled as the Elixir libraries spell it.
func TestMaskKeyring(t *testing.T) {
	cases := rotationRing(t)
	for g := 1; g <= 2; g++ {
		var in, wantURL, wantHex []string
		for _, c := range cases {
			if c.Generation == g {
				in, wantURL, wantHex = append(in, c.Unsigned), append(wantURL, c.URL64), append(wantHex, c.Hex)
			}
		}
		args := []string{"mask", "--prefix", "usr_", "--int", "--keyring-env", "ONCE_TEST_RING"}
		if g == 1 {
			args = append(args, "--generation", "1")
		}
		equalLines(t, "mask generation "+strconv.Itoa(g), mustCLI(t, strings.Join(in, "\n"), args...), wantURL)
		equalLines(t, "mask --to hex generation "+strconv.Itoa(g), mustCLI(t, strings.Join(in, "\n"), append(args, "--to", "hex")...), wantHex)
	}
}

// TestInspectKeyring: inspect unmasks each VALUE with its generation's key
// and reports the generation and that key's fingerprint, also in --grep
// mode without --prefix.
func TestInspectKeyring(t *testing.T) {
	rotationRing(t)
	const stored = "253107496041709568"
	var spellings []string
	for g := 1; g <= 2; g++ {
		spellings = append(spellings, mustCLI(t, "", "mask", "--prefix", "usr_", "--int", "--keyring-env", "ONCE_TEST_RING", "--generation", strconv.Itoa(g), stored)[0])
	}
	if !strings.HasPrefix(spellings[0], "usr_") || !strings.HasPrefix(spellings[1], "usr2_") {
		t.Fatalf("spellings %q", spellings)
	}
	keys := vectorKeyFingerprints(t)
	plain := mustCLI(t, "", "inspect", "--int", stored)[0]
	for i, sp := range spellings {
		want := strings.Replace(plain, `"value":"`+stored+`"`, `"value":"`+sp+`"`, 1)
		want = strings.TrimSuffix(want, "}") + `,"generation":` + strconv.Itoa(i+1) + `,"key":"` + keys[i] + `"}`
		equalLines(t, "inspect", mustCLI(t, "", "inspect", "--prefix", "usr_", "--keyring-env", "ONCE_TEST_RING", sp), []string{want})
		line := "GET /users/" + sp + " 200"
		equalLines(t, "inspect --grep", mustCLI(t, "", "inspect", "--grep", "--keyring-env", "ONCE_TEST_RING", line), []string{want})
	}
}

// vectorKeyFingerprints returns the fingerprints of K1 and K2.
func vectorKeyFingerprints(t *testing.T) []string {
	t.Helper()
	ring := os.Getenv("ONCE_TEST_RING")
	var fps []string
	for _, line := range strings.Split(strings.TrimSpace(ring), "\n") {
		key, err := decodeKeyHex(strings.TrimPrefix(strings.Fields(line)[1], "hex:"))
		if err != nil {
			t.Fatal(err)
		}
		fp, err := nonce.Fingerprint(key)
		if err != nil {
			t.Fatal(err)
		}
		fps = append(fps, fp)
	}
	return fps
}
