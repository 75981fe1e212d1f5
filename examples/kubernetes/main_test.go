package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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
				if m[1] != "103" {
					t.Errorf("machine ID %s, want 103 (ordinal 3 + offset 100)", m[1])
				}
				base = m[2]
			}
		case err := <-done:
			t.Fatalf("run returned early: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("not listening after 20s")
		}
	}
	resp, err := http.Get(base + "/id")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if _, err := once.ParseAs[OrderID](body["id"]); err != nil {
		t.Errorf("GET /id: %v %v", body, err)
	}
	resp, err = http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz: %d %s", resp.StatusCode, b)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no shutdown within 20s")
	}
}

// TestBadPodIndex: a POD_INDEX set but empty (the pod has no pod-index
// label: a cluster before 1.28) stops the program with the reason.
func TestBadPodIndex(t *testing.T) {
	t.Setenv("POD_INDEX", "")
	t.Setenv("ADDR", "127.0.0.1:0")
	err := run(context.Background(), io.Discard)
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "POD_INDEX is empty: the pod has no apps.kubernetes.io/pod-index label") {
		t.Errorf("run with an empty POD_INDEX: %v, want a lease.ErrConfig explaining the missing label", err)
	}
}

func TestBadPodName(t *testing.T) {
	t.Setenv("POD_NAME", "web")
	t.Setenv("ADDR", "127.0.0.1:0")
	err := run(context.Background(), io.Discard)
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "POD_NAME") || !strings.Contains(err.Error(), `"web"`) {
		t.Errorf("run with POD_NAME=web: %v, want a lease.ErrConfig naming POD_NAME and its value", err)
	}
}
