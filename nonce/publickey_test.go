package nonce_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
)

// publicKeys are the keys once publishes: the demo keys its example
// programs fall back to and the placeholders of its manifests, docs and
// command help. TestPublishedKeysListed checks that the list is complete.
var publicKeys = []string{
	"once-quickstart-demo-key-do-not-use-in-production",
	"once-examples-demo-key-do-not-use-in-production",
	"once-sqlc-example-demo-key-do-not-use-in-production",
	"once-pgx-example-demo-key-do-not-use-in-production",
	"once ent example demo key, public: set ONCE_KEY!!",
	"replace-me-with-openssl-rand-base64-32-output",
	"replace-me-with-the-output-of-openssl-rand-hex-32",
	"an example base key of 32+ bytes!",
}

// TestPublicKeysRefused: a factory refuses every published key, also
// edited or with the quotes and newline a copied value carries, with an
// ErrConfig that names the setting and the fix and does not echo the key;
// AllowDemoKey accepts them.
func TestPublicKeysRefused(t *testing.T) {
	variants := func(k string) []string {
		return []string{k, k + "\n", `"` + k + `"`, strings.ToUpper(k)}
	}
	keys := append([]string{}, publicKeys...)
	keys = append(keys, "replace-me-with-a-key-of-your-own-32-bytes", "my-service-key-do-not-use-in-production")
	for _, k := range keys {
		for _, v := range variants(k) {
			_, err := nonce.New(nonce.Config{BaseKey: []byte(v), Fixed: true})
			if !errors.Is(err, nonce.ErrConfig) {
				t.Errorf("New with public key %q: err = %v, want ErrConfig", v, err)
				continue
			}
			msg := err.Error()
			for _, want := range []string{"nonce: BaseKey", "openssl rand -hex 32", "AllowDemoKey"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not mention %q", msg, want)
				}
			}
			if strings.Contains(strings.ToLower(msg), strings.ToLower(k[:12])) {
				t.Errorf("message %q echoes the key", msg)
			}
		}
		f, err := nonce.New(nonce.Config{BaseKey: []byte(k), AllowDemoKey: true, Fixed: true})
		if err != nil {
			t.Fatalf("New with AllowDemoKey: %v", err)
		}
		if _, err := f.Encrypt64(1); err != nil {
			t.Fatalf("Encrypt64 with a demo key: %v", err)
		}
	}
	// A generated key is accepted.
	if _, err := nonce.New(nonce.Config{BaseKey: []byte("3f9a1c0e5b7d2a4968f0c1e3b5d7a9c2e4f6081a3c5e7092b4d6f8a0c2e4f607")}); err != nil {
		t.Fatalf("New with a generated key: %v", err)
	}
}

// TestPublishedKeysListed: every demo key the example programs declare and
// every placeholder the manifests and docs set ONCE_KEY to is refused, so
// a new example or manifest cannot add a key that slips through.
func TestPublishedKeysListed(t *testing.T) {
	root := filepath.Join("..")
	found := map[string]string{} // key -> where
	goKey := regexp.MustCompile(`(?i)(?:demoKey|DemoKey)\s*=\s*"([^"]+)"|key = "([^"]{32,})"`)
	exportKey := regexp.MustCompile(`export ONCE_KEY=(?:'([^']+)'|"([^"]+)"|([^\s'"$]\S*))`) // shell, in docs and help
	yamlKey := regexp.MustCompile(`^\s*ONCE_KEY:\s*"([^"]+)"`)                               // a Secret's stringData
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".md" && ext != ".yaml" && ext != ".yml" {
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil // tests use keys of their own
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if m := goKey.FindStringSubmatch(line); m != nil && ext == ".go" {
				found[m[1]+m[2]] = path
			}
			if m := exportKey.FindStringSubmatch(line); m != nil {
				found[m[1]+m[2]+m[3]] = path
			}
			if m := yamlKey.FindStringSubmatch(line); m != nil && ext != ".go" {
				found[m[1]] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("published keys: %q", found)
	if len(found) < 5 {
		t.Fatalf("found only %d published keys: %v", len(found), found)
	}
	for k, where := range found {
		if len(k) < 32 {
			continue // not a usable base key
		}
		if _, err := nonce.New(nonce.Config{BaseKey: []byte(k)}); !errors.Is(err, nonce.ErrConfig) {
			t.Errorf("%s publishes the key %q, which New accepts (err %v): add it to the refused keys", where, k, err)
		}
	}
}
