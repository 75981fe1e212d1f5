package cli

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestHelp checks that --help documents every command and every flag, at
// the top level and per command, on stdout with exit status 0.
func TestHelp(t *testing.T) {
	all := append(commands(), leaseCommands()...)
	top := mustCLI(t, "", "--help")
	topText := strings.Join(top, "\n")
	for _, alt := range [][]string{{"help"}, {"-h"}} {
		if got := strings.Join(mustCLI(t, "", alt...), "\n"); got != topText {
			t.Errorf("once %s differs from once --help", alt[0])
		}
	}
	for _, c := range all {
		if !strings.Contains(topText, "once "+c.usage) {
			t.Errorf("once --help lacks the synopsis of %s", c.name)
		}
		fs, _ := c.flags(&env{}, c)
		help := strings.Join(mustCLI(t, "", append(strings.Fields(c.name), "--help")...), "\n")
		if alt := strings.Join(mustCLI(t, "", append([]string{"help"}, strings.Fields(c.name)...)...), "\n"); alt != help {
			t.Errorf("once help %s differs from once %s --help", c.name, c.name)
		}
		if !strings.Contains(help, "usage: once "+c.usage) {
			t.Errorf("%s --help lacks its synopsis", c.name)
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(help, "--"+f.Name) {
				t.Errorf("%s --help does not document --%s", c.name, f.Name)
			}
			if f.Name != "verbose" && !strings.Contains(c.usage, "-"+f.Name) { // -n, --to ...
				t.Errorf("the synopsis of %s lacks --%s", c.name, f.Name)
			}
		})
	}
	for _, d := range coord.Names() {
		if !strings.Contains(topText, d) {
			t.Errorf("once --help does not mention driver %s", d)
		}
	}
	lease := strings.Join(mustCLI(t, "", "lease", "--help"), "\n")
	for _, c := range leaseCommands() {
		if !strings.Contains(lease, "once "+c.usage) {
			t.Errorf("once lease --help lacks %s", c.name)
		}
	}
}

// TestUsageErrors: bad command lines exit 2 with the reason on stderr and
// nothing on stdout.
func TestUsageErrors(t *testing.T) {
	key := strings.Repeat("ab", 32)
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"convert", "AAAAAAAAAAA"}, // --to missing
		{"convert", "--to", "raw", "AAAAAAAAAAA"},            // not a text format
		{"convert", "--to", "hex", "--prefix", "a b", "x"},   // bad prefix
		{"convert", "--to", "hex", "--bogus", "AAAAAAAAAAA"}, // unknown flag
		{"convert", "--int", "--to", "hex", "-5"},            // negative number without --
		{"mask", "--to", "hex", "AAAAAAAAAAA"},               // no key
		{"mask", "--to", "hex", "--cipher", "aes", "--key-hex", key, "AAAAAAAAAAA"},
		{"mask", "--to", "hex", "--key-hex", key, "--key-env", "X", "AAAAAAAAAAA"},
		{"inspect", "--epoch", "yesterday", "AAAAAAAAAAA"},
		{"gen"},                        // --machine-id missing
		{"gen", "--machine-id", "512"}, // out of range
		{"gen", "--machine-id", "1", "--kind", "encrypted"}, // no key
		{"gen", "--machine-id", "1", "--key-hex", key},      // key without encrypted
		{"gen", "--machine-id", "1", "extra"},
		{"lease"},
		{"lease", "frob"},
		{"lease", "ls", "--dsn", "x"}, // --driver missing
		{"lease", "ls", "--driver", "oracle", "--dsn", "x"},
		{"lease", "ls", "--driver", "redis", "--dsn", "127.0.0.1:1"},             // --mode missing
		{"lease", "ls", "--driver", "sqlite", "--mode", "hash", "--dsn", "x.db"}, // --mode not for SQL
		{"lease", "migrate", "--driver", "sqlite", "--dsn", "x.db", "--table", "Bad-Name"},
	} {
		r := cli("", args...)
		if r.code != exitUsage || r.stdout != "" || r.stderr == "" {
			t.Errorf("once %q: %v\nwant exit 2, a reason on stderr, nothing on stdout", args, r)
		}
	}
}

// TestKeyNeverPrinted: bad keys are reported without their bytes.
func TestKeyNeverPrinted(t *testing.T) {
	secretHex := "5ec2e75ec2e75ec2e75ec2e75ec2e75ec2e7zz"
	t.Setenv("ONCE_TEST_SHORT_KEY", "sup3r-s3cret-but-short")
	for _, args := range [][]string{
		{"mask", "--to", "hex", "--key-hex", secretHex, "AAAAAAAAAAA"},
		{"mask", "--to", "hex", "--key-hex", secretHex[:36], "AAAAAAAAAAA"}, // valid hex, too short
		{"unmask", "--to", "hex", "--key-env", "ONCE_TEST_SHORT_KEY", "AAAAAAAAAAA"},
		{"gen", "--machine-id", "1", "--kind", "encrypted", "--key-env", "ONCE_TEST_SHORT_KEY"},
	} {
		r := cli("", args...)
		if r.code == 0 {
			t.Errorf("once %q: exit 0 with a bad key", args)
		}
		for _, secret := range []string{"5ec2e7", "c2e75e", "s3cret", "short"} {
			if strings.Contains(r.stderr, secret) {
				t.Errorf("once %q: stderr shows key material: %q", args, r.stderr)
			}
		}
	}
}

// TestStdin: no VALUE arguments means one value per line of stdin; CRLF
// and a missing final newline are fine; invalid lines (also empty ones) are
// reported and skipped.
func TestStdin(t *testing.T) {
	in := "zAjhfZyAAAE\r\nPG4E2VCSG0002\n\nnope\ncc08e17d9c800001"
	r := cli(in, "convert", "--to", "signed")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	want := "-3744495160545771519"
	equalLines(t, "stdout", r.lines(), []string{want, want, want})
	errs := r.errLines()
	if len(errs) != 2 || !strings.Contains(errs[0], `""`) || !strings.Contains(errs[1], `"nope"`) {
		t.Errorf("stderr %q, want errors naming \"\" and \"nope\"", r.stderr)
	}
	// A huge line is one invalid value, quoted by its start.
	long := strings.Repeat("A", 3*maxLine)
	r = cli("AAAAAAAAAAE\n"+long+"\nAAAAAAAAAAI\n", "convert", "--to", "unsigned")
	equalLines(t, "long line", r.lines(), []string{"1", "2"})
	if r.code != 1 || len(r.errLines()) != 1 || !strings.Contains(r.stderr, `"AAAAAAAAAA`) || len(r.stderr) > 200 {
		t.Errorf("long line: %v", r)
	}
	// Arguments win over stdin.
	equalLines(t, "args, not stdin", mustCLI(t, "AAAAAAAAAAI\n", "convert", "--to", "unsigned", "AAAAAAAAAAE"), []string{"1"})
}

// TestNegativeNumbers: "--" ends the flags so negative values can follow.
func TestNegativeNumbers(t *testing.T) {
	got := mustCLI(t, "", "convert", "--int", "--to", "url64", "--", "-3744495160545771519", "-1", "+5")
	equalLines(t, "negatives", got, []string{"zAjhfZyAAAE", "__________8", "AAAAAAAAAAU"})
	got = mustCLI(t, "", "convert", "-int", "-to=unsigned", "--", "-1")
	equalLines(t, "single-dash flags", got, []string{"18446744073709551615"})
}

// inspected is one line of inspect's output.
type inspected struct {
	Value     string `json:"value"`
	Unsigned  string `json:"unsigned"`
	Timestamp string `json:"timestamp"`
	MachineID int    `json:"machine_id"`
	Counter   int    `json:"counter"`
}

func parseInspect(t *testing.T, lines []string) []inspected {
	t.Helper()
	out := make([]inspected, len(lines))
	for i, l := range lines {
		d := json.NewDecoder(strings.NewReader(l))
		d.DisallowUnknownFields()
		if err := d.Decode(&out[i]); err != nil {
			t.Fatalf("inspect line %q: %v", l, err)
		}
	}
	return out
}

// TestInspect checks inspect's JSON against nonce.Split64 for every format
// vector, with the default and another epoch. Vectors whose timestamp
// would lie in the future (most: they are spread over the 64-bit range)
// are refused, as masked IDs are, with one error line each.
func TestInspect(t *testing.T) {
	v := loadVectors(t)
	values := column(v.Formats, "url64")
	for _, epoch := range []string{"", "2020-02-29T12:00:00Z"} {
		args := []string{"inspect"}
		ep := time.Time{}
		if epoch != "" {
			args = append(args, "--epoch", epoch)
			ep, _ = time.Parse(time.RFC3339, epoch)
		}
		printed, refused := 0, 0
		for i, value := range values {
			r := cli("", append(args, value)...)
			u, _ := strconv.ParseUint(v.Formats[i]["unsigned"], 10, 64)
			p := nonce.Split64(u, ep)
			if p.Time.After(time.Now().Add(maxAhead)) {
				refused++
				if r.code != exitFail || r.stdout != "" || len(r.errLines()) != 1 || !strings.Contains(r.stderr, strconv.Quote(value)) {
					t.Errorf("inspect %s (timestamp %v): %v\nwant it refused: exit 1, one error line naming it", value, p.Time, r)
				}
				continue
			}
			printed++
			want := inspected{value, v.Formats[i]["unsigned"], p.Time.UTC().Format("2006-01-02T15:04:05.000Z"), p.MachineID, p.Counter}
			if r.code != 0 || r.stderr != "" {
				t.Errorf("inspect %s: %v", value, r)
			} else if g := parseInspect(t, r.lines()); len(g) != 1 || g[0] != want {
				t.Errorf("inspect %s = %+v, want %+v", value, g, want)
			}
		}
		if printed < 5 || refused < 5 {
			t.Errorf("epoch %q: %d vectors printed, %d refused; the vectors should show both", epoch, printed, refused)
		}
	}
	// --int and --prefix, and the value echoed as given.
	got := parseInspect(t, mustCLI(t, "", "inspect", "--int", "--prefix", "t_", "--", "t_+0253107496041709568"))
	if got[0].Value != "t_+0253107496041709568" || got[0].Unsigned != "253107496041709568" || got[0].MachineID != 112 {
		t.Errorf("inspect --int --prefix: %+v", got[0])
	}
	// A negative int64 has the top bit set: its timestamp is 70 years or
	// more past the epoch.
	if r := cli("", "inspect", "--int", "--prefix", "t_", "--", "t_-3744495160545771519"); r.code != exitFail || r.stdout != "" {
		t.Errorf("inspect of a negative value: %v\nwant it refused", r)
	}
}

// TestGen: N distinct values carrying the machine ID (checked by inspect),
// in the requested format and prefix, with the warning on stderr.
func TestGen(t *testing.T) {
	const n = 5000
	for _, kind := range []string{"counter", "sortable"} {
		r := cli("", "gen", "-n", strconv.Itoa(n), "--kind", kind, "--machine-id", "300", "--prefix", "x_", "--to", "hex32")
		if r.code != 0 || !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "machine ID 300") {
			t.Fatalf("gen %s: exit %d, stderr %q", kind, r.code, r.stderr)
		}
		vals := r.lines()
		checkDistinct(t, kind, vals, n)
		for _, j := range parseInspect(t, mustCLI(t, r.stdout, "inspect", "--prefix", "x_")) {
			if j.MachineID != 300 {
				t.Fatalf("gen %s: %s has machine ID %d", kind, j.Value, j.MachineID)
			}
		}
	}
	// Encrypted: unmasking with the same key and cipher gives counter nonces.
	key := strings.Repeat("0f", 32)
	r := cli("", "gen", "-n", "100", "--kind", "encrypted", "--machine-id", "7", "--cipher", "speck", "--key-hex", key)
	if r.code != 0 {
		t.Fatal(r)
	}
	checkDistinct(t, "encrypted", r.lines(), 100)
	plain := mustCLI(t, r.stdout, "unmask", "--cipher", "speck", "--key-hex", key, "--to", "url64")
	for _, j := range parseInspect(t, mustCLI(t, strings.Join(plain, "\n"), "inspect")) {
		if j.MachineID != 7 {
			t.Fatalf("gen encrypted: %s decrypts to machine ID %d", j.Value, j.MachineID)
		}
	}
	// The default format is url64, parseable as a plain once.ID.
	r = cli("", "gen", "--machine-id", "0")
	if r.code != 0 || len(r.lines()) != 1 {
		t.Fatalf("gen default: %v", r)
	}
	for _, s := range r.lines() {
		if _, err := once.Parse(s); err != nil {
			t.Errorf("gen default: %v", err)
		}
	}
}

func checkDistinct(t *testing.T, what string, vals []string, n int) {
	t.Helper()
	if len(vals) != n {
		t.Fatalf("%s: %d values, want %d", what, len(vals), n)
	}
	seen := make(map[string]bool, n)
	for _, v := range vals {
		if seen[v] {
			t.Fatalf("%s: %s twice", what, v)
		}
		seen[v] = true
	}
}

// TestBinaryPipe runs the real binary: a pipeline with the key from the
// environment and an invalid value in the middle.
func TestBinaryPipe(t *testing.T) {
	bin := binary(t)
	key := "0123456789abcdef0123456789abcdef"
	cmd := exec.Command(bin, "mask", "--key-env", "K", "--prefix", "u_", "--to", "url64", "--int", "--", "u_1", "u_-2", "x", "u_3")
	cmd.Env = append(os.Environ(), "K="+key)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("mask: %v, want exit status 1", err)
	}
	if !strings.Contains(stderr.String(), `"x"`) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q", stderr.String())
	}
	masked := splitLines(string(out))
	if len(masked) != 3 {
		t.Fatalf("stdout %q", out)
	}
	cmd = exec.Command(bin, "unmask", "--key-env", "K", "--prefix", "u_", "--to", "signed")
	cmd.Env = append(os.Environ(), "K="+key)
	cmd.Stdin = strings.NewReader(string(out))
	back, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "round trip", splitLines(string(back)), []string{"u_1", "u_-2", "u_3"})
}

// TestInspectMasked: a masked ID decodes to noise. Without its key inspect
// says so (exit 1, no made-up time); with --key-env or --key-hex it unmasks
// the value first and prints the stored value's fields; with a wrong key it
// says the key does not fit.
func TestInspectMasked(t *testing.T) {
	const stored = "253107496041709568" // made 2026-11-30 under machine ID 112
	t.Setenv("K", "once-quickstart-demo-key-do-not-use-in-production")
	t.Setenv("WRONG", "another key of thirty-two bytes or more")
	masked := mustCLI(t, "", "mask", "--key-env", "K", "--prefix", "usr_", "--int", "--to", "url64", "--", "usr_"+stored)[0]

	r := cli("", "inspect", "--prefix", "usr_", masked)
	if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, strconv.Quote(masked)) || !strings.Contains(r.stderr, "masked") {
		t.Errorf("inspect of the masked %s without its key: %v\nwant exit 1, no output, and a line saying it is masked", masked, r)
	}
	want := mustCLI(t, "", "inspect", "--int", stored)[0]
	want = strings.Replace(want, `"value":"`+stored+`"`, `"value":"`+masked+`"`, 1)
	got := mustCLI(t, "", "inspect", "--key-env", "K", "--prefix", "usr_", masked)
	equalLines(t, "inspect --key-env", got, []string{want})
	if j := parseInspect(t, got)[0]; j.MachineID != 112 || j.Unsigned != stored {
		t.Errorf("inspect --key-env of %s: %+v, want the stored %s of machine ID 112", masked, j, stored)
	}
	r = cli("", "inspect", "--key-env", "WRONG", "--prefix", "usr_", masked)
	if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, "key") {
		t.Errorf("inspect of %s with a wrong key: %v\nwant exit 1 and a line saying the key does not fit", masked, r)
	}
	// A masked value among plain ones: the plain ones print, exit 1.
	r = cli("", "inspect", "--prefix", "usr_", "usr_"+mustCLI(t, "", "convert", "--int", "--to", "url64", stored)[0], masked)
	if r.code != exitFail || len(r.lines()) != 1 || len(r.errLines()) != 1 {
		t.Errorf("inspect of a plain and a masked ID: %v\nwant the plain one printed, one error line, exit 1", r)
	}

	// Masked values of 2000 consecutive stored IDs: only those whose noise
	// happens to read as a past time can pass for plain IDs, a share of
	// (now - epoch) / 2^42 ms (about 1.4% in 2026).
	var in []string
	base, _ := strconv.ParseUint(stored, 10, 64)
	for i := range uint64(2000) {
		in = append(in, strconv.FormatUint(base+i, 10))
	}
	all := mustCLI(t, strings.Join(in, "\n"), "mask", "--key-env", "K", "--int", "--to", "url64")
	r = cli(strings.Join(all, "\n"), "inspect")
	share := float64(time.Since(nonce.DefaultEpoch())) / float64(time.Duration(1<<42)*time.Millisecond)
	if passed := len(r.lines()); float64(passed) > 2000*share*2+10 || len(r.errLines()) != 2000-passed {
		t.Errorf("inspect of 2000 masked IDs: %d printed, %d refused; want at most about %.0f printed, the rest refused", passed, len(r.errLines()), 2000*share)
	}
}
