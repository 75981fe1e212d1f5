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
	if err != nil {
		t.Fatal(err)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		body := fmt.Sprintf(`{"email":"slow%d@example.com"}`, i)
		fmt.Fprintf(c, "POST /users HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", host, len(body))
		r := bufio.NewReader(c)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		status, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
			t.Fatalf("slow create %d: %q %v, want 100 Continue", i, status, err)
		}
		if blank, err := r.ReadString('\n'); err != nil || blank != "\r\n" {
			t.Fatalf("slow create %d: after 100 Continue %q %v", i, blank, err)
		}
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

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Wait until the server has stopped accepting, then a little more:
	// whatever SIGTERM stops has stopped.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections 10s after SIGTERM")
		}
	}
	time.Sleep(300 * time.Millisecond)
	for i, w := range waiting {
		if _, err := io.WriteString(w.c, w.body); err != nil {
			t.Fatalf("slow create %d: sending the body: %v", i, err)
		}
		resp, err := http.ReadResponse(w.r, nil)
		if err != nil {
			t.Errorf("slow create %d: no answer: %v", i, err)
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
	if err != nil {
		t.Errorf("exit after SIGTERM: %v\nstderr:\n%s", err, p.stderrText())
	}
	if len(bodies) > 0 {
		t.Errorf("accepted creates answered other than 201: %v; bodies: %q", statuses, bodies)
	}
	if statuses[http.StatusCreated] < slow {
		t.Errorf("%d creates answered 201, want at least the %d in flight", statuses[http.StatusCreated], slow)
	}

	db, err := sql.Open("sqlite", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var stored int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != statuses[http.StatusCreated] {
		t.Errorf("%d users stored, %d creates answered 201", stored, statuses[http.StatusCreated])
	}
}
