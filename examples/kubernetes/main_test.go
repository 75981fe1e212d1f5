package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/lease"
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
	for k, v := range map[string]string{"ONCE_ID_OFFSET": "100", "ADDR": "127.0.0.1:0"} {
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

// TestBadPodIndex: a POD_INDEX set but empty (the pod has no pod-index
// label: a cluster before 1.28) stops the program with the reason.
func TestBadPodIndex(t *testing.T) {
	t.Setenv("POD_INDEX", "")
	t.Setenv("ADDR", "127.0.0.1:0")
	err := run(context.Background(), io.Discard)
	if assert.ErrorIs(t, err, lease.ErrConfig, "run with an empty POD_INDEX") {
		assert.Contains(t, err.Error(), "POD_INDEX is empty: the pod has no apps.kubernetes.io/pod-index label", "run with an empty POD_INDEX: want the missing label explained")
	}
}

func TestBadPodName(t *testing.T) {
	t.Setenv("POD_NAME", "web")
	t.Setenv("ADDR", "127.0.0.1:0")
	err := run(context.Background(), io.Discard)
	if assert.ErrorIs(t, err, lease.ErrConfig, "run with POD_NAME=web") {
		assert.Contains(t, err.Error(), "POD_NAME", "run with POD_NAME=web: the error names POD_NAME")
		assert.Contains(t, err.Error(), `"web"`, "run with POD_NAME=web: the error names the value")
	}
}
