package redislease_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
)

// Stand-ins and throwaway servers for the error-mapping tests: states a
// shared server cannot safely be put in.

// blackhole accepts connections and never answers.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { io.Copy(io.Discard, c); c.Close() })
		}
	})
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

// fakeServer answers the connection handshake and, while *reply is empty,
// the commands of Check as a healthy server would; once *reply is set it
// answers every command with it (a RESP error line such as "-LOADING ...").
// It stands in for server states a test cannot put a shared server in.
func fakeServer(t *testing.T, reply *atomic.Pointer[string]) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					out := *reply.Load()
					switch cmd := strings.ToUpper(args[0]); {
					case cmd == "HELLO":
						out = "-ERR unknown command 'HELLO'"
					case cmd == "CLIENT" || cmd == "PING":
						out = "+OK"
					case out != "":
					case cmd == "HSETEX" || cmd == "EXISTS":
						out = ":0"
					case cmd == "TYPE":
						out = "+none"
					case cmd == "INFO":
						info := "# Memory\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n# Replication\r\nconnected_slaves:0"
						out = "$" + strconv.Itoa(len(info)) + "\r\n" + info
					case cmd == "SCRIPT":
						out = "$40\r\n" + strings.Repeat("0", 40)
					default:
						out = "-ERR fake server: unexpected " + cmd
					}
					if _, err := io.WriteString(c, out+"\r\n"); err != nil {
						return
					}
				}
			})
		}
	})
	return l.Addr().String()
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || line[0] != '*' || n < 1 {
		return nil, errors.New("bad command")
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:size])
	}
	return args, nil
}

// privateRedis starts a throwaway redis-server with extra arguments and
// returns its address.
func privateRedis(t *testing.T, args ...string) string {
	t.Helper()
	testenv.Short(t, "a private Redis 7 server")
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testenv.Unavailable(t, "redis-server binary not found")
	}
	return startServer(t, bin, args...)
}

// startServer starts the Redis-protocol server bin on a loopback port
// ([testenv.FreePort]) with extra arguments, stops it when the test ends,
// and returns its address once it answers.
func startServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	port := strconv.Itoa(testenv.FreePort(t))
	addr := "127.0.0.1:" + port
	cmd := exec.Command(bin, append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := c.Ping(context.Background()).Err(); err == nil || strings.HasPrefix(err.Error(), "MASTERDOWN") {
			return addr
		} else if time.Now().After(deadline) {
			t.Fatalf("private server %s on %s did not start: %v", bin, addr, err)
		}
	}
}
