package nonce

import (
	"bytes"
	"strings"
)

// publicKeys are base keys that once publishes, in lower case: the demo
// keys its example programs fall back to, and the placeholders and sample
// keys of its manifests, docs and command help. A factory refuses them
// unless Config.AllowDemoKey is set: IDs masked with a public key hide
// nothing.
var publicKeys = []string{
	"once-quickstart-demo-key-do-not-use-in-production",
	"once-examples-demo-key-do-not-use-in-production",
	"once-sqlc-example-demo-key-do-not-use-in-production",
	"once-pgx-example-demo-key-do-not-use-in-production",
	"once ent example demo key, public: set once_key!!",
	"replace-me-with-openssl-rand-base64-32-output",
	"replace-me-with-the-output-of-openssl-rand-hex-32",
	"an example base key of 32+ bytes!",
}

// publicMarkers are parts of the published keys that no generated key
// contains, so that an edited placeholder is refused too.
var publicMarkers = []string{"do-not-use-in-production", "replace-me"}

var errPublicKey = &nonceError{ErrConfig, "nonce: BaseKey is a public key (a demo key of once's examples or a placeholder of its manifests and docs): " +
	"generate one with openssl rand -hex 32, or set Config.AllowDemoKey for a demo whose masked IDs hide nothing"}

// isPublicKey reports whether key is one of publicKeys or contains one of
// publicMarkers, ignoring case and surrounding spaces and quotes (as a
// value copied from a manifest may carry them).
func isPublicKey(key []byte) bool {
	if len(key) == 0 {
		return false
	}
	k := string(bytes.ToLower(bytes.Trim(key, " \t\r\n\"'")))
	for _, p := range publicKeys {
		if k == p {
			return true
		}
	}
	for _, m := range publicMarkers {
		if strings.Contains(k, m) {
			return true
		}
	}
	return false
}
