// Package aimocktest runs aimock (npm @copilotkit/aimock), an independent
// OpenAI-compatible mock server, for integration tests: it starts `llmock` on a free
// 127.0.0.1 port with a fixture file or directory, waits until it is healthy, stops it when
// the test ends, and reads its request journal to assert what was sent.
//
// The binary is found through the CTXLAB_AIMOCK environment variable (the path of
// llmock), else node_modules/.bin/llmock or .ci/aimock/node_modules/.bin/llmock under the
// repository root. Without it the tests are skipped with a message saying how to install
// it, unless CTXLAB_AIMOCK_REQUIRED=1, which makes a missing binary a failure (for CI).
package aimocktest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Version is the aimock release the fixtures are written for.
const Version = "1.43.0"

// Install says how to make the binary available: npm ci installs the version pinned in
// .ci/aimock/package-lock.json and leaves the pin in package.json as it is.
const Install = "npm ci --prefix .ci/aimock (from the repository root), or run .ci/run, " +
	"or set CTXLAB_AIMOCK to the llmock binary"

// Binary returns the path of the llmock binary, or an error saying where it looked.
func Binary() (string, error) {
	if p := os.Getenv("CTXLAB_AIMOCK"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CTXLAB_AIMOCK: %w", err)
		}
		return p, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	var tried []string
	for _, rel := range []string{"node_modules/.bin/llmock", ".ci/aimock/node_modules/.bin/llmock"} {
		p := filepath.Join(root, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("llmock not found (tried %s)", strings.Join(tried, ", "))
}

// repoRoot returns the nearest directory above the working directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Options configures a server.
type Options struct {
	// Fixtures is a fixture file or a directory of them (required).
	Fixtures string
	// APIKeys, when set, makes aimock answer 401 to any other key (AIMOCK_API_KEYS); the
	// server's own control calls use the first one.
	APIKeys []string
	// Args are extra llmock flags, e.g. "--chunk-size", "5".
	Args []string
}

// skipped holds why the last test that needed aimock was skipped (a string), if one was.
var skipped atomic.Value

// Main runs a package's tests (call it from TestMain) and, when a test was skipped for
// want of aimock, says so once on stderr with how to install it: go test without -v then
// shows why (in its local directory mode: go test ./... shows a passing package's output
// only with -v).
func Main(m *testing.M) int {
	code := m.Run()
	if why, ok := skipped.Load().(string); ok {
		fmt.Fprintf(os.Stderr, "aimock integration tests skipped: %s; to run them: %s\n", why, Install)
	}
	return code
}

// Server is a running aimock.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT; the OpenAI API is under BaseURL.
	URL  string
	key  string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

// BaseURL returns the OpenAI-compatible API root, URL + "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Start starts aimock for the test and stops it at the end. It skips the test when the
// binary is not installed (fails instead with CTXLAB_AIMOCK_REQUIRED=1).
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CTXLAB_AIMOCK_REQUIRED") == "1" {
			tb.Fatalf("aimock is required: %v; install it: %s", err, Install)
		}
		skipped.Store(err.Error())
		tb.Skipf("aimock integration test skipped: %v; to run it: %s", err, Install)
	}
	fixtures, err := filepath.Abs(o.Fixtures)
	if err != nil {
		tb.Fatal(err)
	}
	var lastErr error
	for range 3 { // the free port may be taken between probing and binding
		s, err := start(bin, fixtures, o)
		if err == nil {
			tb.Cleanup(s.stop)
			return s
		}
		lastErr = err
	}
	tb.Fatalf("aimock: %v", lastErr)
	return nil
}

func start(bin, fixtures string, o Options) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-f", fixtures, "--strict", "--log-level", "warn"}, o.Args...)
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(port), log: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.Env = os.Environ()
	if len(o.APIKeys) > 0 {
		s.cmd.Env = append(s.cmd.Env, "AIMOCK_API_KEYS="+strings.Join(o.APIKeys, ","))
		s.key = o.APIKeys[0]
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("llmock exited: %s", strings.TrimSpace(s.log.String()))
		default:
		}
		if resp, err := http.Get(s.URL + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("llmock not healthy after 15s: %s", strings.TrimSpace(s.log.String()))
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Log returns what aimock printed so far.
func (s *Server) Log() string { return s.log.String() }

// Entry is one request of the journal.
type Entry struct {
	ID        string            `json:"id"`
	Timestamp int64             `json:"timestamp"`
	Method    string            `json:"method"`
	Path      string            `json:"path"`
	Headers   map[string]string `json:"headers"`
	// Body is the JSON request body as aimock parsed it (it adds "_endpointType").
	Body     json.RawMessage `json:"body"`
	Response struct {
		Status          int             `json:"status"`
		Fixture         json.RawMessage `json:"fixture"`
		Interrupted     bool            `json:"interrupted"`
		InterruptReason string          `json:"interruptReason"`
	} `json:"response"`
}

// Request decodes the body as a chat request.
func (e Entry) Request() (chat.Request, error) {
	var r chat.Request
	err := json.Unmarshal(e.Body, &r)
	return r, err
}

// Fields decodes the body as a JSON object (to see stream, stream_options, …).
func (e Entry) Fields() (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(e.Body, &m)
	return m, err
}

// Journal returns the requests received, oldest first, optionally only those whose path
// contains path (e.g. "/chat/completions").
func (s *Server) Journal(tb testing.TB, path string) []Entry {
	tb.Helper()
	u := s.URL + "/__aimock/journal"
	if path != "" {
		u += "?path=" + path
	}
	var out []Entry
	if err := s.call(http.MethodGet, u, nil, &out); err != nil {
		tb.Fatalf("aimock journal: %v", err)
	}
	return out
}

// ClearJournal empties the journal (fixtures and match counts are kept).
func (s *Server) ClearJournal(tb testing.TB) {
	tb.Helper()
	if err := s.call(http.MethodPost, s.URL+"/__aimock/reset/journal", nil, nil); err != nil {
		tb.Fatalf("aimock reset journal: %v", err)
	}
}

// QueueError makes the next request fail once with status and message.
func (s *Server) QueueError(tb testing.TB, status int, message string) {
	tb.Helper()
	body := map[string]any{"status": status}
	if message != "" {
		body["body"] = map[string]string{"message": message, "type": "server_error"}
	}
	if err := s.call(http.MethodPost, s.URL+"/__aimock/error", body, nil); err != nil {
		tb.Fatalf("aimock queue error: %v", err)
	}
}

func (s *Server) call(method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.key != "" {
		req.Header.Set("Authorization", "Bearer "+s.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// syncBuffer is a bytes.Buffer safe for the process's writers and the test's readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
