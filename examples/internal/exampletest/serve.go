package exampletest

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// Serve runs an API example's run function (see exampledb.Serve) on a
// fresh SQLite file with ADDR=127.0.0.1:0 and returns its base URL. When the
// test ends it stops the program and fails the test if run returned an
// error.
func Serve(t *testing.T, run func(ctx context.Context, out io.Writer, getenv func(string) string) error) string {
	t.Helper()
	env := map[string]string{
		"DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "example.db"),
		"ADDR":         "127.0.0.1:0",
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, pw, func(k string) string { return env[k] })
		pw.CloseWithError(err)
		done <- err
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("run ended before listening: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not start within 60 s")
	}
	return ""
}
