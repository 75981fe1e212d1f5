package once_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// rotBinding is the binding of the rotating test types; tests that set its
// keyring or factory do not run in parallel.
var rotBinding once.Binding

type (
	rotSpec    struct{}
	rotHexSpec struct{}
	rotDecSpec struct{}
	rotBare    struct{} // masked, prefix "u": no separator to carry a generation
)

func (rotSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &rotBinding}
}
func (rotHexSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Format: once.Hex, Mask: true, Generator: &rotBinding}
}
func (rotDecSpec) Options() once.Options {
	return once.Options{Prefix: "ord-", Format: once.Signed, Mask: true, Generator: &rotBinding}
}
func (rotBare) Options() once.Options {
	return once.Options{Prefix: "u", Mask: true, Generator: &rotBinding}
}

type (
	RotID    = once.Typed[rotSpec]
	RotHexID = once.Typed[rotHexSpec]
)

// rotationVectors mirrors ../testdata/rotation.json.
type rotationVectors struct {
	About       string `json:"about"`
	Cipher      string `json:"cipher"`
	Generations []struct {
		Generation int    `json:"generation"`
		Prefix     string `json:"prefix"`
		BaseKeyHex string `json:"base_key_hex"`
	} `json:"generations"`
	Cases []struct {
		Generation int    `json:"generation"`
		Unsigned   string `json:"unsigned"`
		URL64      string `json:"url64"`
		Hex        string `json:"hex"`
	} `json:"cases"`
}

func loadRotationVectors(t testing.TB) *rotationVectors {
	t.Helper()
	data, err := os.ReadFile("../testdata/rotation.json")
	if err != nil {
		t.Fatal(err)
	}
	var v rotationVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Generations) != 2 || len(v.Cases) == 0 {
		t.Fatal("rotation.json: want 2 generations and cases")
	}
	return &v
}

// vectorKeys returns K1 and K2 of the shared vectors.
func vectorKeys(t testing.TB) [][]byte {
	t.Helper()
	c := loadConformance(t)
	var keys [][]byte
	for _, k := range c.Keys {
		b, err := hex.DecodeString(k.BaseKeyHex)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, b)
	}
	return keys
}

func mustRing(t testing.TB, current int, keys ...[]byte) *once.Keyring {
	t.Helper()
	r, err := once.NewKeyring(nonce.Blowfish, current, keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRotationVectors checks that rotation.json is what conformance.json
// (computed by the Elixir libraries) gives, then runs it: each spelling
// parses to its value and generation under the keyring {K1, K2}, and is
// what the type formats while its generation is current.
func TestRotationVectors(t *testing.T) {
	c := loadConformance(t)
	v := loadRotationVectors(t)
	n := 0
	for g, k := range c.Keys {
		gv := v.Generations[g]
		if gv.Generation != g+1 || gv.BaseKeyHex != k.BaseKeyHex {
			t.Fatalf("rotation.json generation %d: %+v, want base key %s", g+1, gv, k.BaseKeyHex)
		}
		for _, b := range k.Block64 {
			plain := mustHex64(t, b.Plain)
			if plain == 0 {
				continue
			}
			if n >= len(v.Cases) {
				t.Fatalf("rotation.json has fewer cases than conformance.json")
			}
			cs := v.Cases[n]
			n++
			want := [3]string{strconv.Itoa(g + 1), gv.Prefix + b.BlowfishURL64, gv.Prefix + b.Blowfish}
			got := [3]string{strconv.Itoa(cs.Generation), cs.URL64, cs.Hex}
			if got != want || cs.Unsigned != strconv.FormatUint(plain, 10) {
				t.Errorf("rotation.json case %d = %+v, want %v for %d", n, cs, want, plain)
			}
		}
	}
	if n != len(v.Cases) {
		t.Errorf("rotation.json has %d cases, conformance.json gives %d", len(v.Cases), n)
	}

	keys := vectorKeys(t)
	defer rotBinding.SetKeyring(nil)
	both := mustRing(t, 2, keys...)
	byGen := map[int]*once.Keyring{1: mustRing(t, 1, keys...), 2: both}
	for _, cs := range v.Cases {
		want := mustUint(t, cs.Unsigned)
		rotBinding.SetKeyring(both)
		for _, s := range []string{cs.URL64, cs.Hex} {
			var id uint64
			var g int
			var err error
			if s == cs.Hex {
				var h RotHexID
				h, g, err = once.ParseGeneration[RotHexID](s)
				id = h.Uint64()
			} else {
				var u RotID
				u, g, err = once.ParseGeneration[RotID](s)
				id = u.Uint64()
			}
			if err != nil || id != want || g != cs.Generation {
				t.Errorf("ParseGeneration(%q) = %d, %d, %v; want %d, generation %d", s, id, g, err, want, cs.Generation)
			}
		}
		rotBinding.SetKeyring(byGen[cs.Generation])
		if got := RotID(once.FromUint64(want)).String(); got != cs.URL64 {
			t.Errorf("generation %d: String(%d) = %q, want %q", cs.Generation, want, got, cs.URL64)
		}
		if got := RotHexID(once.FromUint64(want)).String(); got != cs.Hex {
			t.Errorf("generation %d: hex String(%d) = %q, want %q", cs.Generation, want, got, cs.Hex)
		}
	}
}

// TestRotationSingleKeyUnchanged: a keyring of one generation spells as
// the factory with that base key did, byte for byte.
func TestRotationSingleKeyUnchanged(t *testing.T) {
	keys := vectorKeys(t)
	defer rotBinding.Set(nil)
	defer rotBinding.SetKeyring(nil)
	rotBinding.Set(keyFactory(t, keys[0], nonce.Blowfish))
	ids := []uint64{1, 123, 1 << 40, 14702248913163780097, 1<<64 - 1}
	var before []string
	for _, v := range ids {
		before = append(before, RotID(once.FromUint64(v)).String(), RotHexID(once.FromUint64(v)).String())
	}
	rotBinding.Set(nil)
	rotBinding.SetKeyring(mustRing(t, 0, keys[0]))
	for i, v := range ids {
		u, h := RotID(once.FromUint64(v)), RotHexID(once.FromUint64(v))
		if got := []string{u.String(), h.String()}; got[0] != before[2*i] || got[1] != before[2*i+1] {
			t.Errorf("%d: keyring spells %q, factory spelled %q", v, got, before[2*i:2*i+2])
		}
		if back, g, err := once.ParseGeneration[RotID](before[2*i]); err != nil || back != u || g != 1 {
			t.Errorf("ParseGeneration(%q) = %v, %d, %v", before[2*i], back, g, err)
		}
	}
}

func TestRotationParseAndFormat(t *testing.T) {
	keys := vectorKeys(t)
	defer rotBinding.SetKeyring(nil)
	id := RotID(once.FromUint64(255514662584827904))
	rotBinding.SetKeyring(mustRing(t, 1, keys...))
	old := id.String()
	rotBinding.SetKeyring(mustRing(t, 2, keys...))
	cur := id.String()
	if !strings.HasPrefix(old, "usr_") || !strings.HasPrefix(cur, "usr2_") || old[4:] == cur[5:] {
		t.Fatalf("spellings %q (generation 1) and %q (generation 2)", old, cur)
	}
	for _, s := range []string{old, cur} {
		if back, err := once.ParseAs[RotID](s); err != nil || back != id {
			t.Errorf("ParseAs(%q) = %v, %v; want %v", s, back, err, id)
		}
	}
	js, err := json.Marshal(id)
	if err != nil || string(js) != `"`+cur+`"` {
		t.Errorf("MarshalJSON = %s, %v; want %q", js, err, cur)
	}
	var back RotID
	if err := json.Unmarshal([]byte(`"`+old+`"`), &back); err != nil || back != id {
		t.Errorf("UnmarshalJSON(%q) = %v, %v", old, back, err)
	}
	// Lenient parser and tools.
	o := rotSpec{}.Options()
	for g, s := range map[int]string{1: old, 2: cur} {
		got, gen, err := o.ParseAnyGeneration(s)
		if err != nil || got != once.ID(id) || gen != g {
			t.Errorf("ParseAnyGeneration(%q) = %v, %d, %v", s, got, gen, err)
		}
		if b, err := o.AppendGeneration(nil, once.ID(id), g); err != nil || string(b) != s {
			t.Errorf("AppendGeneration(%d) = %q, %v; want %q", g, b, err, s)
		}
	}
	// Unknown generations: an error, never another key.
	for _, s := range []string{"usr3_" + cur[5:], "usr999_" + cur[5:], "usr1000_" + cur[5:]} {
		_, err := once.ParseAs[RotID](s)
		if !errors.Is(err, once.ErrUnknownGeneration) || !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAs(%q) = %v; want ErrUnknownGeneration and ErrInvalid", s, err)
		}
	}
	for _, s := range []string{"usr1_" + cur[5:], "usr02_" + cur[5:], "usr2-" + cur[5:], "usr2_" + cur[5:] + "A", "usr2_"} {
		if _, err := once.ParseAs[RotID](s); !errors.Is(err, once.ErrInvalid) || errors.Is(err, once.ErrUnknownGeneration) {
			t.Errorf("ParseAs(%q) = %v; want ErrInvalid", s, err)
		}
	}
	// Without a keyring only generation 1 exists.
	rotBinding.SetKeyring(nil)
	rotBinding.Set(keyFactory(t, keys[0], nonce.Blowfish))
	defer rotBinding.Set(nil)
	if _, err := once.ParseAs[RotID](cur); !errors.Is(err, once.ErrUnknownGeneration) {
		t.Errorf("without keyring, ParseAs(%q) = %v; want ErrUnknownGeneration", cur, err)
	}
	if back, err := once.ParseAs[RotID](old); err != nil || back != id {
		t.Errorf("factory key = generation 1: ParseAs(%q) = %v, %v", old, back, err)
	}
}

// TestRotationSignedPrefix: a decimal format and another separator.
func TestRotationSignedPrefix(t *testing.T) {
	keys := vectorKeys(t)
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(mustRing(t, 2, keys...))
	id := once.Typed[rotDecSpec](once.FromUint64(42))
	s := id.String()
	if !strings.HasPrefix(s, "ord2-") {
		t.Fatalf("String = %q, want ord2-...", s)
	}
	if back, g, err := once.ParseGeneration[once.Typed[rotDecSpec]](s); err != nil || back != id || g != 2 {
		t.Errorf("ParseGeneration(%q) = %v, %d, %v", s, back, g, err)
	}
}

// TestRotationBarePrefix: a prefix without a separator cannot carry a
// generation: formatting fails loudly and Check says so.
func TestRotationBarePrefix(t *testing.T) {
	keys := vectorKeys(t)
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(mustRing(t, 1, keys...))
	if err := once.Check(rotBare{}); err != nil {
		t.Errorf("Check with generation 1 current: %v", err)
	}
	rotBinding.SetKeyring(mustRing(t, 2, keys...))
	id := once.Typed[rotBare](once.FromUint64(42))
	if _, err := id.MarshalText(); !errors.Is(err, once.ErrConfig) {
		t.Errorf("MarshalText = %v; want ErrConfig", err)
	}
	if err := once.Check(rotBare{}); !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), "separator") {
		t.Errorf("Check = %v; want ErrConfig about the separator", err)
	}
}

type (
	colUsr   struct{}
	colUsr2  struct{}
	colUsr1  struct{}
	colPlain struct{}
)

func (colUsr) Options() once.Options   { return once.Options{Prefix: "usr_", Mask: true} }
func (colUsr2) Options() once.Options  { return once.Options{Prefix: "usr2_"} }
func (colUsr1) Options() once.Options  { return once.Options{Prefix: "usr1_", Mask: true} }
func (colPlain) Options() once.Options { return once.Options{Prefix: "usr_x_"} }

// TestCheckGenerationPrefixes: no type's prefix is another's generation
// spelling.
func TestCheckGenerationPrefixes(t *testing.T) {
	if err := once.Check(colUsr{}, colPlain{}); err != nil {
		t.Errorf("Check(usr_, usr_x_) = %v", err)
	}
	err := once.Check(colUsr{}, colUsr2{})
	if !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), `"usr2_"`) || !strings.Contains(err.Error(), "generation 2") {
		t.Errorf("Check(usr_, usr2_) = %v; want the collision", err)
	}
	err = once.Check(colUsr1{}, colUsr{})
	if !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), "usr12_") {
		t.Errorf("Check(usr1_, usr_) = %v; want the shared generation prefixes", err)
	}
	if err := once.Check(colUsr{}); err != nil {
		t.Errorf("Check(usr_) = %v", err)
	}
	for g, want := range map[int]string{1: "usr_", 2: "usr2_", 17: "usr17_"} {
		if got, err := once.GenerationPrefix("usr_", g); err != nil || got != want {
			t.Errorf("GenerationPrefix(usr_, %d) = %q, %v", g, got, err)
		}
	}
	if _, err := once.GenerationPrefix("u", 2); !errors.Is(err, once.ErrConfig) {
		t.Errorf("GenerationPrefix(u, 2) = %v", err)
	}
}

// rotationKeys returns n base keys for generations 1..n.
func rotationKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = bytes.Repeat([]byte{byte(0x31 + 7*i)}, 32)
	}
	return keys
}

// TestRotationProperty: after 3 rotations (4 generations), IDs minted while
// each generation was current format and parse back, under the keyring of
// today, to the same value and generation (10^6 per generation; 10^4 with
// -short).
func TestRotationProperty(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 10_000
	}
	keys := rotationKeys(4)
	final := mustRing(t, 0, keys...)
	defer rotBinding.SetKeyring(nil)
	rng := rand.New(rand.NewPCG(43, 4))
	buf := make([]byte, 0, n*20)
	for g := 1; g <= 4; g++ {
		then := mustRing(t, g, keys[:g]...) // the keyring while g was current
		rotBinding.SetKeyring(then)
		vals := make([]uint64, n)
		buf, ends := buf[:0], make([]int, n)
		for i := range vals {
			for vals[i] == 0 {
				vals[i] = rng.Uint64()
			}
			var err error
			if buf, err = RotID(once.FromUint64(vals[i])).AppendText(buf); err != nil {
				t.Fatal(err)
			}
			ends[i] = len(buf)
		}
		rotBinding.SetKeyring(final)
		start := 0
		for i, v := range vals {
			s := buf[start:ends[i]]
			start = ends[i]
			var id RotID
			if err := id.UnmarshalText(s); err != nil || id.Uint64() != v {
				t.Fatalf("generation %d: UnmarshalText(%q) = %d, %v; want %d", g, s, id.Uint64(), err, v)
			}
			if i%97 == 0 { // the generation, on a sample (ParseGeneration takes a string)
				if _, gen, err := once.ParseGeneration[RotID](string(s)); err != nil || gen != g {
					t.Fatalf("ParseGeneration(%q) = generation %d, %v; want %d", s, gen, err, g)
				}
			}
		}
	}
}

// fuzzRing is the keyring of FuzzRotation: 3 generations, 3 current.
var fuzzRing = func() *once.Keyring {
	r, err := once.NewKeyring(nonce.Blowfish, 0, rotationKeys(3)...)
	if err != nil {
		panic(err)
	}
	return r
}()

// FuzzRotation: a string that parses names the generation whose key made
// it (the parsed value, spelled under that generation, is the string
// again), a spelling made under generation g parses under g's key only,
// and a spelling of a generation the keyring lacks never parses.
func FuzzRotation(f *testing.F) {
	f.Add(uint64(1), uint8(1), "usr_AAAAAAAAAAE")
	f.Add(uint64(255514662584827904), uint8(2), "usr2_lHobWSj0lCo")
	f.Add(uint64(1<<64-1), uint8(3), "usr4_lHobWSj0lCo")
	f.Add(uint64(7), uint8(9), "usr03_lHobWSj0lCo")
	o := rotSpec{}.Options()
	f.Fuzz(func(t *testing.T, v uint64, gb uint8, s string) {
		rotBinding.SetKeyring(fuzzRing)
		defer rotBinding.SetKeyring(nil)
		if id, g, err := once.ParseGeneration[RotID](s); err == nil {
			if g < 1 || g > 3 {
				t.Fatalf("ParseGeneration(%q): generation %d", s, g)
			}
			again, err := o.AppendGeneration(nil, once.ID(id), g)
			if err != nil || string(again) != s {
				t.Fatalf("ParseGeneration(%q) = %d, generation %d, which spells %q", s, id.Uint64(), g, again)
			}
		} else if !errors.Is(err, once.ErrInvalid) {
			t.Fatalf("ParseGeneration(%q): %v is not ErrInvalid", s, err)
		}
		if v == 0 {
			return
		}
		g := int(gb)%3 + 1
		made, err := o.AppendGeneration(nil, once.FromUint64(v), g)
		if err != nil {
			t.Fatal(err)
		}
		id, gen, err := once.ParseGeneration[RotID](string(made))
		if err != nil || id.Uint64() != v || gen != g {
			t.Fatalf("made %q under generation %d from %d; parsed %d, generation %d, %v", made, g, v, id.Uint64(), gen, err)
		}
		// The same characters under a generation the keyring lacks.
		body := made[len("usr_"):]
		if g > 1 {
			body = made[len("usr2_"):]
		}
		unknown := "usr" + strconv.Itoa(4+int(gb)) + "_" + string(body)
		if _, _, err := once.ParseGeneration[RotID](unknown); !errors.Is(err, once.ErrUnknownGeneration) {
			t.Fatalf("ParseGeneration(%q) = %v; want ErrUnknownGeneration", unknown, err)
		}
	})
}

// TestRotationAllocs pins the zero allocations of parsing and appending
// under a keyring, current and retired generations.
func TestRotationAllocs(t *testing.T) {
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(fuzzRing)
	id := RotID(once.FromUint64(255514662584827904))
	cur := id.String()
	o := rotSpec{}.Options()
	old, err := o.AppendGeneration(nil, once.ID(id), 1)
	if err != nil {
		t.Fatal(err)
	}
	oldText := string(old)
	buf := make([]byte, 0, 64)
	for name, fn := range map[string]func(){
		"ParseAs current": func() { _, _ = once.ParseAs[RotID](cur) },
		"ParseAs retired": func() { _, _ = once.ParseAs[RotID](oldText) },
		"UnmarshalText":   func() { var x RotID; _ = x.UnmarshalText(old) },
		"AppendText":      func() { _, _ = id.AppendText(buf[:0]) },
	} {
		if n := testing.AllocsPerRun(200, fn); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

// rotationBench binds rotBinding to a Speck64 factory for the run of b
// and returns one ID's spelling with the factory's key alone (single), and
// with a keyring of 3 generations whose first is that key (current, the
// third generation's spelling), and the keyring.
func rotationBench(b *testing.B) (single, current string, ring *once.Keyring) {
	keys := rotationKeys(3)
	f, err := nonce.New(nonce.Config{Fixed: true, BaseKey: keys[0], Cipher64: nonce.Speck})
	if err != nil {
		b.Fatal(err)
	}
	ring, err = once.NewKeyring(nonce.Speck, 0, keys...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rotBinding.SetKeyring(nil); rotBinding.Set(nil) })
	rotBinding.Set(f)
	id := RotID(once.FromUint64(255514662584827904))
	single = id.String()
	rotBinding.SetKeyring(ring)
	return single, id.String(), ring
}

// BenchmarkParseRotation compares parsing a masked ID today (one key, the
// factory's) with parsing under a keyring: its current generation after
// rotations, and a retired one. Speck64 keeps the cipher's share small, so
// that the difference shows what the generation costs (Blowfish takes
// ~100 ns more per parse, in every case alike).
func BenchmarkParseRotation(b *testing.B) {
	single, current, ring := rotationBench(b)
	run := func(name, s string, r *once.Keyring) {
		b.Run(name, func(b *testing.B) {
			rotBinding.SetKeyring(r)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := once.ParseAs[RotID](s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("single-key", single, nil)
	run("keyring-current-gen3", current, ring)
	run("keyring-retired-gen1", single, ring)
}

// BenchmarkRotationOverhead measures what the generation costs on a loaded
// machine: it alternates short batches of today's single-key parse and of
// the keyring's current-generation parse (Speck64, as above) and reports
// the fastest batch of each, per parse, and their difference (extra-ns/op).
// The minimum of many interleaved batches filters out the time other
// processes take, which swamps a few nanoseconds in a plain benchmark.
func BenchmarkRotationOverhead(b *testing.B) {
	single, current, ring := rotationBench(b)
	const batch = 2000
	batchNs := func(s string, r *once.Keyring) float64 {
		rotBinding.SetKeyring(r)
		start := time.Now()
		for range batch {
			if _, err := once.ParseAs[RotID](s); err != nil {
				b.Fatal(err)
			}
		}
		return float64(time.Since(start).Nanoseconds()) / batch
	}
	minSingle, minCur := math.Inf(1), math.Inf(1)
	for b.Loop() {
		minSingle = min(minSingle, batchNs(single, nil))
		minCur = min(minCur, batchNs(current, ring))
	}
	b.ReportMetric(minSingle, "single-ns/op")
	b.ReportMetric(minCur, "current-ns/op")
	b.ReportMetric(minCur-minSingle, "extra-ns/op")
}

// TestRotationSchema: with a keyring of 3 generations the pattern accepts
// each generation's prefix and no other; without one it is unchanged.
func TestRotationSchema(t *testing.T) {
	defer rotBinding.SetKeyring(nil)
	plain, err := once.SchemaOf(rotSpec{})
	if err != nil {
		t.Fatal(err)
	}
	rotBinding.SetKeyring(fuzzRing)
	s, err := once.SchemaOf(RotID{})
	if err != nil {
		t.Fatal(err)
	}
	const wantPattern = `^usr(?:2|3)?_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$`
	if s.Pattern != wantPattern || s.Generations != 3 || s.MinLength != 15 || s.MaxLength != 16 ||
		plain.Pattern != `^usr_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$` || plain.Generations != 1 {
		t.Fatalf("schema %+v (without keyring %+v)", s, plain)
	}
	re := regexp.MustCompile(s.Pattern)
	id := RotID(once.FromUint64(255514662584827904))
	o := rotSpec{}.Options()
	for g := 1; g <= 3; g++ {
		text, err := o.AppendGeneration(nil, once.ID(id), g)
		if err != nil {
			t.Fatal(err)
		}
		if !re.Match(text) || len(text) < s.MinLength || len(text) > s.MaxLength {
			t.Errorf("pattern %s rejects generation %d's %q", s.Pattern, g, text)
		}
		body := string(text[len(text)-11:])
		for _, p := range []string{"usr1_", "usr4_", "usr02_", "usr23_"} {
			if re.MatchString(p + body) {
				t.Errorf("pattern %s accepts %q", s.Pattern, p+body)
			}
		}
	}
	if !re.MatchString(s.Example) || !strings.HasPrefix(s.Example, "usr3_") {
		t.Errorf("example %q", s.Example)
	}
	js, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(js), `"generations":3`) {
		t.Errorf("MarshalJSON = %s, %v", js, err)
	}
	if js, _ := json.Marshal(plain); strings.Contains(string(js), "generations") {
		t.Errorf("without keyring, MarshalJSON = %s", js)
	}
}

// TestRotationConcurrent: binding a new keyring while other goroutines
// parse and format is safe, and a generation-1 spelling reads the same ID
// under the keyring before and after the rotation (run it with -race).
func TestRotationConcurrent(t *testing.T) {
	keys := rotationKeys(2)
	before, after := mustRing(t, 0, keys[0]), mustRing(t, 0, keys...)
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(before)
	id := RotID(once.FromUint64(255514662584827904))
	old := id.String()
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				back, err := once.ParseAs[RotID](old)
				if err == nil && back != id {
					err = errors.New("generation-1 spelling read as another ID")
				}
				if err == nil {
					var s string
					if s = id.String(); s != old && !strings.HasPrefix(s, "usr2_") {
						err = errors.New("spelled " + s)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 2000 {
		if i%2 == 0 {
			rotBinding.SetKeyring(after)
		} else {
			rotBinding.SetKeyring(before)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
