package main

import (
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

// readmePath is the README whose CLI section TestREADMEExamples runs.
var readmePath = "../../README.md"

// TestREADMEExamples: the CLI section of the README shows each of the
// deterministic commands, with the key it uses, and every one of them
// reproduces exactly.
func TestREADMEExamples(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## CLI")
	if !ok {
		t.Fatal("README.md has no CLI section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var ran = map[string]int{}
	for i, block := range strings.Split(section, "```console")[1:] {
		block, _, _ = strings.Cut(block, "```")
		for k, n := range parseTranscript("README CLI block "+string(rune('1'+i)), block).check(t) {
			ran[k] += n
		}
	}
	for _, name := range deterministic {
		if ran[name] == 0 {
			t.Errorf("the README's CLI section shows no once %s", name)
		}
	}
}

// TestREADMEQuickstartKey: the README's CLI section unmasks the
// quickstart's IDs with the key the quickstart masks them with (its demo
// key, when ONCE_KEY is not set), and each ID it unmasks is one the
// README's quickstart output shows, next to the stored value it unmasks to.
func TestREADMEQuickstartKey(t *testing.T) {
	src, err := os.ReadFile("../../examples/quickstart/main.go")
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
	readme := string(b)
	_, quick, _ := strings.Cut(readme, "\n## Two commands")
	quick, _, _ = strings.Cut(quick, "\n## ")
	_, section, _ := strings.Cut(readme, "\n## CLI")
	section, _, _ = strings.Cut(section, "\n## ")
	unmasked := 0
	for _, block := range strings.Split(section, "```console")[1:] {
		block, _, _ = strings.Cut(block, "```")
		for _, s := range parseTranscript("README CLI", block).steps {
			words := shellWords(s.line)
			if len(words) == 2 && words[0] == "export" && strings.HasPrefix(words[1], "ONCE_KEY=") {
				if key := strings.TrimPrefix(words[1], "ONCE_KEY="); key != demoKey {
					t.Errorf("the README's CLI section exports ONCE_KEY=%s; the quickstart masks with %s", key, demoKey)
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
				t.Errorf("the README's CLI section unmasks %s to %s; the quickstart output shows no such user", masked, stored)
			}
		}
	}
	if unmasked == 0 {
		t.Error("the README's CLI section unmasks no quickstart ID")
	}
}
