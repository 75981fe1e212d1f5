package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// lineWriter hands each line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- s[:i]
		w.buf.Reset()
		w.buf.WriteString(s[i+1:])
	}
}

// TestExample runs the program with the ordinal from the pod-index label
// (POD_INDEX) and from the pod name (POD_NAME), asks for an ID and its
// health, and shuts it down.
func TestExample(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"pod-index": {"POD_INDEX": "3", "POD_NAME": "web-9"}, // POD_INDEX wins
		"pod-name":  {"POD_NAME": "web-3"},
	} {
		t.Run(name, func(t *testing.T) {
			for k, v := range env {
				t.Setenv(k, v)
			}
			runExample(t)
		})
	}
}

func runExample(t *testing.T) {
	for k, v := range map[string]string{"ONCE_ID_OFFSET": "100", "ADDR": "127.0.0.1:0", "ONCE_KEY": testKey} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWriter{lines: make(chan string, 8)}
	done := make(chan error, 1)
	go func() { done <- run(ctx, out) }()

	var base string
	for base == "" {
		select {
		case l := <-out.lines:
			t.Log(l)
			if m := regexp.MustCompile(`machine ID (\d+); listening on (\S+)`).FindStringSubmatch(l); m != nil {
				assert.Equal(t, "103", m[1], "machine ID, want ordinal 3 + offset 100")
				base = m[2]
			}
		case err := <-done:
			require.Failf(t, "run returned early", "error: %v", err)
		case <-time.After(20 * time.Second):
			require.Fail(t, "not listening after 20s")
		}
	}
	resp, err := http.Get(base + "/id")
	require.NoError(t, err)
	var body map[string]string
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	_, err = once.ParseAs[OrderID](body["id"])
	assert.NoError(t, err, "GET /id: %v", body)
	resp, err = http.Get(base + "/healthz")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "healthz: %s", b)
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err, "run")
	case <-time.After(20 * time.Second):
		require.Fail(t, "no shutdown within 20s")
	}
}

// testKey is the ONCE_KEY of the tests (what openssl rand -hex 32 prints).
const testKey = "5be2c9d04f1a7e38b6d9c0a2f4e6b8d1c3a5e7f9021b4d6f8a0c2e4f6a8b0c2d"

// TestNoKey: without ONCE_KEY the program refuses to start (no demo key to
// fall back to), saying how to make the Secret; it leases nothing, and
// serves nothing, even with a valid ordinal.
func TestNoKey(t *testing.T) {
	t.Setenv("POD_INDEX", "3")
	t.Setenv("ADDR", "127.0.0.1:0")
	t.Setenv("ONCE_KEY", "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a program that starts anyway returns at once, without an error
	var out strings.Builder
	err := run(ctx, &out)
	if assert.Error(t, err, "run without ONCE_KEY started; output:\n%s", out.String()) {
		assert.Contains(t, err.Error(), "ONCE_KEY is not set")
		assert.Contains(t, err.Error(), "openssl rand -hex 32")
	}
	assert.NotContains(t, out.String(), "listening", "served without ONCE_KEY")
}

// TestPlaceholderKey: the Secret's placeholder of statefulset.yaml, left in
// place, stops the program at start.
func TestPlaceholderKey(t *testing.T) {
	t.Setenv("POD_INDEX", "3")
	t.Setenv("ADDR", "127.0.0.1:0")
	t.Setenv("ONCE_KEY", manifestKey(t, "statefulset.yaml"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(ctx, io.Discard)
	assert.ErrorIs(t, err, nonce.ErrConfig, "run with the manifest's placeholder ONCE_KEY")
}

// manifestKey returns the ONCE_KEY a manifest's Secret sets.
func manifestKey(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*ONCE_KEY:\s*"([^"]+)"`).FindSubmatch(b)
	require.NotNil(t, m, "%s sets no ONCE_KEY", file)
	return string(m[1])
}

// TestBadPodIndex: a POD_INDEX set but empty (the pod has no pod-index
// label: a cluster before 1.28) stops the program with the reason.
func TestBadPodIndex(t *testing.T) {
	t.Setenv("POD_INDEX", "")
	t.Setenv("ADDR", "127.0.0.1:0")
	t.Setenv("ONCE_KEY", testKey)
	err := run(context.Background(), io.Discard)
	if assert.ErrorIs(t, err, lease.ErrConfig, "run with an empty POD_INDEX") {
		assert.Contains(t, err.Error(), "POD_INDEX is empty: the pod has no apps.kubernetes.io/pod-index label", "run with an empty POD_INDEX: want the missing label explained")
	}
}

func TestBadPodName(t *testing.T) {
	t.Setenv("POD_NAME", "web")
	t.Setenv("ADDR", "127.0.0.1:0")
	t.Setenv("ONCE_KEY", testKey)
	err := run(context.Background(), io.Discard)
	if assert.ErrorIs(t, err, lease.ErrConfig, "run with POD_NAME=web") {
		assert.Contains(t, err.Error(), "POD_NAME", "run with POD_NAME=web: the error names POD_NAME")
		assert.Contains(t, err.Error(), `"web"`, "run with POD_NAME=web: the error names the value")
	}
}
