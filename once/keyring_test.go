package once_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

const (
	ringKey1 = "rotation-test-key-generation-one-32"
	ringKey2 = "rotation-test-key-generation-two-32"
	ringKey3 = "rotation-test-key-generation-three"
)

func TestParseKeyring(t *testing.T) {
	fp := func(k string) string {
		f, err := nonce.Fingerprint([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	hexKey := "5dc6b361916a36a5db4ddf363a10a4def2d6b58f0a1314333fee26962db79945"
	fpHex, err := nonce.Fingerprint(vectorKeys(t)[0]) // hexKey is K1 of the vectors
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text   string
		cur, n int
		want   string // String()
	}{
		{ringKey1, 1, 1, "1 " + fp(ringKey1) + " current"},
		{"1 " + ringKey1 + "\n2 " + ringKey2 + "\n", 2, 2, "1 " + fp(ringKey1) + "\n2 " + fp(ringKey2) + " current"},
		{"# keys\n\n1 " + ringKey1 + " current\n2 " + ringKey2 + "\r\n", 1, 2, "1 " + fp(ringKey1) + " current\n2 " + fp(ringKey2)},
		{"cipher speck\n1 hex:" + hexKey + "\n2 " + ringKey2 + "\n3 " + ringKey3 + " current", 3, 3,
			"cipher speck\n1 " + fpHex + "\n2 " + fp(ringKey2) + "\n3 " + fp(ringKey3) + " current"},
	} {
		r, err := once.ParseKeyring(tc.text)
		if err != nil {
			t.Errorf("ParseKeyring(%q): %v", tc.text, err)
			continue
		}
		if r.Current() != tc.cur || r.Generations() != tc.n || r.String() != tc.want {
			t.Errorf("ParseKeyring(%q) = current %d of %d, %q; want %d of %d, %q", tc.text, r.Current(), r.Generations(), r, tc.cur, tc.n, tc.want)
		}
		if fps := r.Fingerprints(); len(fps) != tc.n || fps[tc.n-1] == "" {
			t.Errorf("Fingerprints = %q", fps)
		}
	}
	for _, text := range []string{
		"",
		"short-key",
		"2 " + ringKey1,
		"1 " + ringKey1 + "\n3 " + ringKey2,
		"1 " + ringKey1 + " current\n2 " + ringKey2 + " current",
		"1 " + ringKey1 + " now",
		"1 hex:zz" + ringKey1,
		"1 hex:00",
		"cipher aes\n1 " + ringKey1,
		"x " + ringKey1,
		"1 " + ringKey1 + "\n2 once-examples-demo-key-do-not-use-in-production current", // a public key
		"replace-me-with-the-output-of-openssl-rand-hex-32",                             // a placeholder
	} {
		_, err := once.ParseKeyring(text)
		if !errors.Is(err, once.ErrConfig) {
			t.Errorf("ParseKeyring(%q) = %v; want ErrConfig", text, err)
			continue
		}
		for _, k := range []string{ringKey1, ringKey2} {
			if strings.Contains(err.Error(), k) {
				t.Errorf("ParseKeyring(%q): the error %q shows a key", text, err)
			}
		}
	}
}

func TestKeyringFromEnvAndFile(t *testing.T) {
	text := "1 " + ringKey1 + "\n2 " + ringKey2 + "\n"
	t.Setenv("ONCE_TEST_MASK_KEYS", text)
	r, err := once.KeyringFromEnv("ONCE_TEST_MASK_KEYS")
	if err != nil || r.Current() != 2 {
		t.Fatalf("KeyringFromEnv = %v, %v", r, err)
	}
	if _, err := once.KeyringFromEnv("ONCE_TEST_MASK_KEYS_UNSET"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("unset variable: %v", err)
	}
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := once.KeyringFromFile(path)
	if err != nil || f.String() != r.String() {
		t.Errorf("KeyringFromFile = %v, %v; want %v", f, err, r)
	}
	if _, err := once.KeyringFromFile(path + ".missing"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := once.NewKeyring(nonce.Blowfish, 3, []byte(ringKey1), []byte(ringKey2)); !errors.Is(err, once.ErrConfig) {
		t.Errorf("NewKeyring current 3 of 2: %v", err)
	}
	if _, err := once.NewKeyring(nonce.Blowfish, 0); !errors.Is(err, once.ErrConfig) {
		t.Errorf("NewKeyring without keys: %v", err)
	}
}
