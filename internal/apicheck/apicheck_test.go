package apicheck

import (
	"slices"
	"testing"
)

func TestExports(t *testing.T) {
	got, err := Exports("testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.String())
	}
	want := []string{
		"Counter", "Counter.Draw", "Counter.Inner (field)", "Counter.Inner.Deep (field)", "Counter.Max (field)",
		"Kind", "KindA", "KindB", "Limit", "New", "Reader", "Reader.Read",
	}
	if !slices.Equal(names, want) {
		t.Errorf("Exports:\n got %q\nwant %q", names, want)
	}
}

func TestDocs(t *testing.T) {
	got, err := Docs("testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	var finds []string
	for _, f := range got {
		finds = append(finds, f.Doc+": "+f.Name)
	}
	want := []string{
		"package: helperFunc",
		"Counter: counter.go",
		"Counter: Counter.draw",
		"Counter.Max: Counter.limit",
		"Counter.Inner.Deep: initAt",
		"Counter.Draw: lane.Lane.Draw",
		"Limit: jitter",
		"Limit: jitter",
		"Limit: jitter",
		"KindA: initAt",
		"Reader: leasehook.With",
		"Reader.Read: readMore",
		"Tagged: shortLeases",
	}
	if !slices.Equal(finds, want) {
		t.Errorf("Docs:\n got %q\nwant %q", finds, want)
	}
}

func TestPublicPackages(t *testing.T) {
	got, err := PublicPackages("testdata")
	if err != nil {
		t.Fatal(err)
	}
	// testdata itself has no Go files; sample is under a directory named
	// testdata, but below the root the walk starts from.
	if want := []string{"testdata/sample"}; !slices.Equal(got, want) {
		t.Errorf("PublicPackages = %q, want %q", got, want)
	}
}
