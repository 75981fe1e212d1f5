package once_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/once"
)

// ecmaScript reads {pattern: [strings]} and writes, per pattern, whether
// each string matches under ECMA-262 without and with the u flag (what
// JSON Schema validators in JavaScript run).
const ecmaScript = `
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {
  const out = {};
  for (const [p, strs] of Object.entries(JSON.parse(input))) {
    const plain = new RegExp(p), unicode = new RegExp(p, 'u');
    out[p] = strs.map(s => [plain.test(s), unicode.test(s)]);
  }
  process.stdout.write(JSON.stringify(out));
});`

// TestSchemaPatternECMA runs the patterns in an ECMAScript engine (Node.js)
// on the Format outputs and their mutations: each matches exactly where Go's
// regexp matches. Without node it skips (fails with ONCE_TEST_REQUIRE=1).
func TestSchemaPatternECMA(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Unavailable(t, "node (Node.js) is not on PATH: the ECMA-262 reading of the patterns is unchecked")
	}
	cases := schemaCases(t)
	input := map[string][]string{}
	for _, c := range cases {
		strs := append([]string{}, c.samples...)
		for _, s := range c.seeds[:1] {
			strs = append(strs, mutations(s)...)
		}
		if c.opts.Format == once.Signed || c.opts.Format == once.Unsigned {
			for _, d := range decimalEdges() {
				strs = append(strs, c.opts.Prefix+d)
			}
		}
		input[c.schema.Pattern] = validUTF8(strs)
	}
	data, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "-e", ecmaScript)
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got map[string][][2]bool
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		strs, results := input[c.schema.Pattern], got[c.schema.Pattern]
		if len(results) != len(strs) {
			t.Fatalf("%s: node answered %d results for %d strings", c.name(), len(results), len(strs))
		}
		for i, s := range strs {
			want := c.re.MatchString(s)
			if results[i][0] != want || results[i][1] != want {
				t.Errorf("%s: %q: Go regexp %v, ECMAScript %v, with u flag %v", c.name(), s, want, results[i][0], results[i][1])
			}
			n++
		}
	}
	t.Logf("%d strings agree", n)
}
