package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShutdownFinishesAcceptedCreates sends SIGTERM to the real server
// while creates are in flight: some whose handlers are already reading
// their bodies (their bodies arrive only after the server has stopped
// accepting), and a stream of ordinary ones. Every request the server
// accepted is answered 201 and stored; none gets 503 or 500 "nonce:
// factory disabled" because the IDs stopped before the server had drained.
func TestShutdownFinishesAcceptedCreates(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "api.db")
	p, err := startAPI(t, dir, "DATABASE_URL=sqlite:"+dbPath)
	require.NoError(t, err)
	defer p.kill()
	host := strings.TrimPrefix(p.base, "http://")

	// Creates whose handlers run: the server has answered 100 Continue,
	// which it does when the handler starts reading the body.
	const slow = 8
	type pending struct {
		c    net.Conn
		r    *bufio.Reader
		body string
	}
	var waiting []pending
	for i := range slow {
		c, err := net.Dial("tcp", host)
		require.NoError(t, err)
		defer c.Close()
		body := fmt.Sprintf(`{"email":"slow%d@example.com"}`, i)
		fmt.Fprintf(c, "POST /users HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", host, len(body))
		r := bufio.NewReader(c)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		status, err := r.ReadString('\n')
		require.NoError(t, err, "slow create %d: want 100 Continue", i)
		require.True(t, strings.HasPrefix(status, "HTTP/1.1 100 "), "slow create %d: %q, want 100 Continue", i, status)
		blank, err := r.ReadString('\n')
		require.NoError(t, err, "slow create %d: after 100 Continue", i)
		require.Equal(t, "\r\n", blank, "slow create %d: after 100 Continue", i)
		waiting = append(waiting, pending{c, r, body})
	}

	// A stream of ordinary creates, until the server stops accepting.
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		refused  int
		bodies   []string
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 15 * time.Second}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				resp, err := client.Post(p.base+"/users", "application/json", strings.NewReader(fmt.Sprintf(`{"email":"w%d-%d@example.com"}`, w, i)))
				mu.Lock()
				if err != nil {
					refused++ // never accepted: the listener is closed
					mu.Unlock()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				statuses[resp.StatusCode]++
				if resp.StatusCode != http.StatusCreated {
					bodies = append(bodies, string(b))
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	// Wait until the server has stopped accepting, then a little more:
	// whatever SIGTERM stops has stopped.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			break
		}
		c.Close()
		require.False(t, time.Now().After(deadline), "the server still accepts connections 10s after SIGTERM")
	}
	time.Sleep(300 * time.Millisecond)
	for i, w := range waiting {
		_, err := io.WriteString(w.c, w.body)
		require.NoError(t, err, "slow create %d: sending the body", i)
		resp, err := http.ReadResponse(w.r, nil)
		if !assert.NoError(t, err, "slow create %d: no answer", i) {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mu.Lock()
		statuses[resp.StatusCode]++
		if resp.StatusCode != http.StatusCreated {
			bodies = append(bodies, string(b))
		}
		mu.Unlock()
	}
	wg.Wait()

	rest, err := p.wait(20 * time.Second)
	t.Logf("answers %v, %d creates refused after the listener closed; exit %v, output after SIGTERM %q", statuses, refused, err, rest)
	assert.NoError(t, err, "exit after SIGTERM; stderr:\n%s", p.stderrText())
	assert.Empty(t, bodies, "accepted creates answered other than 201: %v", statuses)
	assert.GreaterOrEqual(t, statuses[http.StatusCreated], slow, "creates answered 201, want at least the ones in flight")

	db, err := sql.Open("sqlite", "file:"+dbPath)
	require.NoError(t, err)
	defer db.Close()
	var stored int
	require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM `+table).Scan(&stored))
	assert.Equal(t, statuses[http.StatusCreated], stored, "users stored, want one per create answered 201")
}
