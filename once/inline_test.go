package once_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHotPathsInline pins what the typed hot paths were tuned for (see
// cache.go and generate.go): the codec lookup, the type key and the
// binding's load inline, so a typed Parse or AppendText costs one call and
// NewAs two (itself and the factory's Counter64). A change that pushes them
// over the compiler's budget fails here rather than showing up only as a
// slower benchmark.
func TestHotPathsInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	out, err := exec.Command(gobin, "build", "-gcflags=-m", "-o", "/dev/null", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	// Generic functions (typeKey, NewAs) are only compiled where they are
	// instantiated; the non-generic lookup is what sets the budget.
	for _, fn := range []string{"codecFor", "slotOf"} {
		if !strings.Contains(string(out), "can inline "+fn+"\n") {
			t.Errorf("%s no longer inlines (go build -gcflags=-m=2 . shows its cost)", fn)
		}
	}
	// NewAs and newValue reach the factory without a call of their own:
	// the binding's load inlines.
	found := false
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, "generate.go:") && strings.HasSuffix(line, ": inlining call to (*Binding).Factory\n") {
			found = true
		}
	}
	if !found {
		t.Error("(*Binding).Factory no longer inlines into newValue (go build -gcflags=-m=2 . shows its cost)")
	}
}
