package k8slease_test

import (
	"testing"

	"github.com/once-go/once/internal/apicheck"
)

// TestDocsNameNoUnexportedCode: the package's docs name no unexported code
// and no file, which a pkg.go.dev reader could not follow.
func TestDocsNameNoUnexportedCode(t *testing.T) {
	findings, err := apicheck.Docs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}
