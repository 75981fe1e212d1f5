package lease

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStateFileWritePads: a shorter content replaces a longer one padded
// with spaces to the old length; a longer one grows the file to its own.
func TestStateFileWritePads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	sf, err := openStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.close()
	for _, c := range []struct{ write, want string }{
		{"abcdef", "abcdef"},
		{"xy", "xy    "},
		{"12345678", "12345678"},
		{"", "        "},
	} {
		if err := sf.write([]byte(c.write)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != c.want {
			t.Errorf("after writing %q: file %q (%v), want %q", c.write, got, err, c.want)
		}
	}
}
