package cli

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// A transcript is a console session: "$ " commands, each followed by its
// expected output lines.
type transcript struct {
	where string
	steps []step
}

type step struct {
	line string   // the command as written, without "$ "
	want []string // the output lines that follow it
}

// parseTranscript reads the "$ " lines of text and the lines after each,
// up to the next command or blank line.
func parseTranscript(where, text string) transcript {
	tr := transcript{where: where}
	output := false // the lines are the output of the last command
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "$ "):
			tr.steps = append(tr.steps, step{line: strings.TrimPrefix(l, "$ ")})
			output = true
		case l == "":
			output = false
		case output:
			s := &tr.steps[len(tr.steps)-1]
			s.want = append(s.want, l)
		}
	}
	return tr
}

// shellWords splits a command line as a POSIX shell would for the simple
// lines of the examples: words separated by blanks, single or double
// quotes around parts of a word (no escapes, no expansions).
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// deterministic are the commands whose output follows from their input.
var deterministic = []string{"convert", "mask", "unmask", "inspect"}

// check runs every deterministic "once" command of tr in-process, after
// the "export NAME=VALUE" lines before it, and compares its output. It
// returns how many commands of each kind it ran.
func (tr transcript) check(t *testing.T) map[string]int {
	t.Helper()
	ran := map[string]int{}
	for _, s := range tr.steps {
		words := shellWords(s.line)
		if len(words) == 2 && words[0] == "export" {
			name, value, ok := strings.Cut(words[1], "=")
			if !ok || strings.Contains(value, "$(") {
				t.Errorf("%s: cannot run %q", tr.where, s.line)
				continue
			}
			t.Setenv(name, value)
			continue
		}
		if len(words) < 2 || words[0] != "once" || !slices.Contains(deterministic, words[1]) {
			continue
		}
		ran[words[1]]++
		r := cli("", words[1:]...)
		if r.code != 0 || r.stderr != "" || !slices.Equal(r.lines(), s.want) {
			t.Errorf("%s: $ %s\ngot:  exit %d, %q, stderr %q\nwant: %q", tr.where, s.line, r.code, r.lines(), r.stderr, s.want)
		}
	}
	return ran
}

// TestHelpExamples: the examples in the commands' help reproduce exactly.
func TestHelpExamples(t *testing.T) {
	for _, c := range commands() {
		if !slices.Contains(deterministic, c.name) {
			continue
		}
		ran := parseTranscript("once "+c.name+" --help", c.about).check(t)
		if ran[c.name] == 0 {
			t.Errorf("once %s --help shows no example of itself", c.name)
		}
	}
}

// cliPagePath is the CLI's documentation page, whose console blocks the
// tests below run; readmePath the README, whose quickstart output
// TestCLIPageQuickstartKey compares with.
var (
	cliPagePath = "../../../../docs/cli.md"
	readmePath  = "../../../../README.md"
)

// cliConsoleBlocks returns the ```console blocks of the CLI's page.
func cliConsoleBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(cliPagePath)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, block := range strings.Split(string(b), "```console")[1:] {
		block, _, _ = strings.Cut(block, "```")
		blocks = append(blocks, block)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no console block", cliPagePath)
	}
	return blocks
}

// TestCLIPageExamples: the CLI's page shows each of the deterministic
// commands, with the key it uses, and every one of them reproduces
// exactly.
func TestCLIPageExamples(t *testing.T) {
	var ran = map[string]int{}
	for i, block := range cliConsoleBlocks(t) {
		for k, n := range parseTranscript("docs/cli.md console block "+string(rune('1'+i)), block).check(t) {
			ran[k] += n
		}
	}
	for _, name := range deterministic {
		if ran[name] == 0 {
			t.Errorf("docs/cli.md shows no once %s", name)
		}
	}
}

// TestCLIPageQuickstartKey: the CLI's page unmasks the quickstart's IDs
// with the key the quickstart masks them with (its demo key, when ONCE_KEY
// is not set), and each ID it unmasks is one the README's quickstart
// output shows, next to the stored value it unmasks to.
func TestCLIPageQuickstartKey(t *testing.T) {
	src, err := os.ReadFile("../../../../examples/quickstart/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "const demoKey = \"")
	demoKey, _, ok2 := strings.Cut(rest, "\"")
	if !ok || !ok2 {
		t.Fatal("examples/quickstart/main.go declares no demoKey")
	}
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	_, quick, ok := strings.Cut(string(b), "\n## Two commands")
	if !ok {
		t.Fatal("README.md has no Two commands section")
	}
	quick, _, _ = strings.Cut(quick, "\n## ")
	unmasked := 0
	for _, block := range cliConsoleBlocks(t) {
		for _, s := range parseTranscript("docs/cli.md", block).steps {
			words := shellWords(s.line)
			if len(words) == 2 && words[0] == "export" && strings.HasPrefix(words[1], "ONCE_KEY=") {
				if key := strings.TrimPrefix(words[1], "ONCE_KEY="); key != demoKey {
					t.Errorf("docs/cli.md exports ONCE_KEY=%s; the quickstart masks with %s", key, demoKey)
				}
			}
			if len(words) < 2 || words[0] != "once" || words[1] != "unmask" || len(s.want) != 1 {
				continue
			}
			unmasked++
			masked, stored := words[len(words)-1], strings.TrimPrefix(s.want[0], "usr_")
			found := false
			for _, l := range strings.Split(quick, "\n") {
				found = found || strings.Contains(l, `"id":"`+masked+`"`) && strings.HasSuffix(strings.TrimSpace(l), " "+stored)
			}
			if !found {
				t.Errorf("docs/cli.md unmasks %s to %s; the README's quickstart output shows no such user", masked, stored)
			}
		}
	}
	if unmasked == 0 {
		t.Error("docs/cli.md unmasks no quickstart ID")
	}
}

// TestCLIPageLeaseCommands: every "once lease" command of the CLI's page
// names a lease command and parses with its flags, and the page shows ls,
// free and hold.
func TestCLIPageLeaseCommands(t *testing.T) {
	seen := map[string]bool{}
	for _, block := range cliConsoleBlocks(t) {
		for _, s := range parseTranscript("docs/cli.md", block).steps {
			words := shellWords(s.line)
			if len(words) < 3 || words[0] != "once" || words[1] != "lease" {
				continue
			}
			i := slices.IndexFunc(leaseCommands(), func(c *command) bool { return c.name == "lease "+words[2] })
			if i < 0 {
				t.Errorf("docs/cli.md: $ %s: no such lease command", s.line)
				continue
			}
			c := leaseCommands()[i]
			seen[c.name] = true
			var errb strings.Builder
			fs, _ := c.flags(&env{stdout: io.Discard, stderr: &errb}, c)
			if _, ok := fs.parse(c, words[3:]); !ok {
				t.Errorf("docs/cli.md: $ %s: %s", s.line, errb.String())
			}
		}
	}
	for _, name := range []string{"lease ls", "lease free", "lease hold"} {
		if !seen[name] {
			t.Errorf("docs/cli.md shows no once %s", name)
		}
	}
}
