package cli

import (
	"regexp"
	"strings"
	"testing"
)

// The commands as a newcomer types them: a stored bigint with the prefix
// the API shows, an ID pasted with its prefix, IDs in a log line.

// storedID is a stored value as the database shows it (signed bigint).
const storedID = "255514662584827904"

// TestMaskBareBigint: mask --prefix P takes the bare bigint the database
// shows (no --int, no --to) and prints P and its masked url64 spelling,
// also after "--"; unmask gives the bigint back.
func TestMaskBareBigint(t *testing.T) {
	t.Setenv("K", "once-quickstart-demo-key-do-not-use-in-production")
	var masked []string
	for _, args := range [][]string{
		{"mask", "--key-env", "K", "--prefix", "usr_", storedID},
		{"mask", "--key-env", "K", "--prefix", "usr_", "--", storedID},
		{"mask", "--key-env", "K", "--prefix", "usr_", "--int", "--to", "url64", "--", "usr_" + storedID},
	} {
		r := cli("", args...)
		if r.code != 0 || r.stderr != "" || len(r.lines()) != 1 || !regexp.MustCompile(`^usr_[A-Za-z0-9_-]{11}$`).MatchString(r.lines()[0]) {
			t.Errorf("once %q: %v\nwant one line usr_ and 11 url64 characters", args, r)
			continue
		}
		masked = append(masked, r.lines()[0])
	}
	if len(masked) == 3 && (masked[0] != masked[1] || masked[0] != masked[2]) {
		t.Errorf("the three spellings masked to %q, want one value", masked)
	}
	if len(masked) > 0 {
		equalLines(t, "unmask", mustCLI(t, "", "unmask", "--key-env", "K", "--prefix", "usr_", masked[0]), []string{storedID})
	}
}

// TestUnknownPrefixHint: a value that carries a prefix the command was not
// told of is refused with a hint naming --prefix and the prefix it carries.
func TestUnknownPrefixHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", "usr_TB-HV2DjORY"}, "--prefix usr_"},
		{[]string{"convert", "--to", "hex", "usr_TB-HV2DjORY"}, "--prefix usr_"},
		{[]string{"convert", "--to", "hex", "--prefix", "org_", "usr_TB-HV2DjORY"}, `the prefix "usr_", not --prefix "org_"`},
		{[]string{"inspect", "--int", "acct_" + storedID}, "--prefix acct_"},
	} {
		r := cli("", c.args...)
		if r.code != exitFail || r.stdout != "" || len(r.errLines()) != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("once %q: %v\nwant exit 1 and one line with %q", c.args, r, c.want)
		}
	}
}

// TestUnmaskDefaultTo: without --to, unmask prints what the database
// holds: the signed decimal, without the prefix.
func TestUnmaskDefaultTo(t *testing.T) {
	t.Setenv("K", "once-quickstart-demo-key-do-not-use-in-production")
	r := cli("", "unmask", "--key-env", "K", "--prefix", "usr_", "usr_kzrDanPawSQ")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("unmask without --to: %v", r)
	}
	equalLines(t, "unmask without --to", r.lines(), []string{"253107496041709568"})
	// A stored value with the top bit set is negative in the database.
	masked := mustCLI(t, "", "mask", "--key-env", "K", "--int", "--", "-3744495160545771519")
	equalLines(t, "unmask of a negative", mustCLI(t, "", "unmask", "--key-env", "K", masked[0]), []string{"-3744495160545771519"})
}

// TestInspectGrep: inspect --grep finds the IDs in free text (log lines,
// JSON), on standard input or in the arguments, and inspects each as found;
// words that are not IDs are no error.
func TestInspectGrep(t *testing.T) {
	const plain = "A4M3aB6CIAA" // 2026-11-30, machine ID 17
	log := "2026-11-30T10:40:00Z INFO GET /users/usr_" + plain + " 200 took=3ms transaction=abc request_id=42\n" +
		`{"id":"ord_AAAAAAAAAAE","user":"usr_` + plain + `"}` + "\n" +
		"nothing to see here\n"
	r := cli(log, "inspect", "--grep")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("inspect --grep: %v", r)
	}
	got := parseInspect(t, r.lines())
	var values []string
	for _, j := range got {
		values = append(values, j.Value)
	}
	equalLines(t, "inspect --grep values", values, []string{"usr_" + plain, "ord_AAAAAAAAAAE", "usr_" + plain})
	if got[0].MachineID != 17 {
		t.Errorf("inspect --grep: %+v, want machine ID 17", got[0])
	}
	// --prefix picks that prefix only; --int picks bare bigints.
	r = cli("", "inspect", "--grep", "--prefix", "ord_", strings.Split(log, "\n")[1])
	if r.code != 0 || len(r.lines()) != 1 || !strings.Contains(r.stdout, `"value":"ord_AAAAAAAAAAE"`) {
		t.Errorf("inspect --grep --prefix ord_: %v", r)
	}
	r = cli("", "inspect", "--grep", "--int", "SELECT * FROM users WHERE id = 253107496041709568;")
	if r.code != 0 || len(r.lines()) != 1 || !strings.Contains(r.stdout, `"value":"253107496041709568","unsigned":"253107496041709568"`) {
		t.Errorf("inspect --grep --int: %v", r)
	}
}

// TestGenMasked: gen --mask prints the masked, prefixed spelling an API
// shows; unmasked with the same key they are values of the machine ID.
func TestGenMasked(t *testing.T) {
	t.Setenv("K", "once-quickstart-demo-key-do-not-use-in-production")
	r := cli("", "gen", "-n", "50", "--machine-id", "300", "--mask", "--key-env", "K", "--prefix", "usr_")
	if r.code != 0 || len(r.lines()) != 50 {
		t.Fatalf("gen --mask: %v", r)
	}
	checkDistinct(t, "gen --mask", r.lines(), 50)
	for _, l := range r.lines() {
		if !strings.HasPrefix(l, "usr_") || len(l) != 15 {
			t.Fatalf("gen --mask printed %q, want usr_ and 11 url64 characters", l)
		}
	}
	for _, j := range parseInspect(t, mustCLI(t, r.stdout, "inspect", "--key-env", "K", "--prefix", "usr_")) {
		if j.MachineID != 300 {
			t.Fatalf("gen --mask: %s unmasks to machine ID %d", j.Value, j.MachineID)
		}
	}
	if r := cli("", "gen", "--machine-id", "1", "--mask"); r.code != exitUsage || !strings.Contains(r.stderr, "--key-env") {
		t.Errorf("gen --mask without a key: %v\nwant a usage error naming the key flags", r)
	}
}

// helpPages returns the --help text of every command and command group,
// found by walking "once --help", "once lease --help" and "once sql --help".
func helpPages(t *testing.T) map[string]string {
	t.Helper()
	pages := map[string]string{"once": strings.Join(mustCLI(t, "", "--help"), "\n")}
	walk := func(text, group string) {
		for _, l := range strings.Split(text, "\n") {
			// Command lists: "  NAME   summary" under a "...commands:" line.
			f := strings.Fields(l)
			if len(f) < 2 || !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
				continue
			}
			name := f[0]
			if group != "" {
				if f[0] != group {
					continue
				}
				name += " " + f[1]
			}
			if !regexp.MustCompile(`^[a-z]+( [a-z]+)?$`).MatchString(name) || pages[name] != "" {
				continue
			}
			r := cli("", append(strings.Fields(name), "--help")...)
			if r.code == 0 && strings.HasPrefix(r.stdout, "usage: once "+name) {
				pages[name] = r.stdout
			}
		}
	}
	walk(pages["once"], "")
	walk(pages["once"], "lease")
	walk(pages["once"], "sql")
	pages["lease"] = strings.Join(mustCLI(t, "", "lease", "--help"), "\n")
	return pages
}

// prose returns the sentences of a help page: its lines but the synopses,
// flag names, example commands and their output, which repeat words by
// nature.
func prose(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"usage:", "once ", "$ ", "{", "--"} {
			if strings.HasPrefix(l, p) {
				l = ""
			}
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// TestHelpNoRepeats: no --help text says the same thing twice: no run of
// eight words (letters and digits, case folded) appears twice in the prose
// of one page.
func TestHelpNoRepeats(t *testing.T) {
	pages := helpPages(t)
	for _, want := range []string{"convert", "mask", "unmask", "inspect", "gen", "version", "sql install", "lease hold", "lease ls", "lease free", "lease migrate"} {
		if pages[want] == "" {
			t.Errorf("walking the help found no page of %s (found %d pages)", want, len(pages))
		}
	}
	word := regexp.MustCompile(`[A-Za-z0-9]+`)
	const n = 8
	for name, text := range pages {
		words := word.FindAllString(strings.ToLower(prose(text)), -1)
		seen := map[string]int{}
		for i := 0; i+n <= len(words); i++ {
			run := strings.Join(words[i:i+n], " ")
			if j, ok := seen[run]; ok && i-j >= n {
				t.Errorf("once %s --help says %q twice (words %d and %d)", name, run, j, i)
				break
			}
			if _, ok := seen[run]; !ok {
				seen[run] = i
			}
		}
	}
}
