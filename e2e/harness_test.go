package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// guard bounds every wait. It is not what any test measures: it only turns a
// hang into a failure, so it is generous for -race on a 2-core machine.
const guard = 20 * time.Second

// watch is an append-only list that tests can wait on: each wait is for an
// item to arrive, never for time to pass.
type watch[T any] struct {
	mu      sync.Mutex
	items   []T
	changed chan struct{} // closed and replaced on every add and at close
	closed  bool
}

func newWatch[T any]() *watch[T] { return &watch[T]{changed: make(chan struct{})} }

func (w *watch[T]) add(v T) {
	w.mu.Lock()
	w.items = append(w.items, v)
	if !w.closed { // after close, changed stays closed
		close(w.changed)
		w.changed = make(chan struct{})
	}
	w.mu.Unlock()
}

func (w *watch[T]) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.changed)
	}
	w.mu.Unlock()
}

// snapshot returns the items so far and whether the list is complete.
func (w *watch[T]) snapshot() ([]T, bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.items), w.closed, w.changed
}

// waitN waits until n items match pred and returns them.
func (w *watch[T]) waitN(t testing.TB, what string, n int, pred func(T) bool) []T {
	t.Helper()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	for {
		items, closed, changed := w.snapshot()
		var got []T
		for _, it := range items {
			if pred(it) {
				got = append(got, it)
			}
		}
		if len(got) >= n {
			return got[:n]
		}
		if closed {
			t.Fatalf("stream ended before %s (%d of %d seen); it had:\n%s", what, len(got), n, dump(items))
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s (%d of %d seen); so far:\n%s", what, len(got), n, dump(items))
		}
	}
}

// waitFor waits for the first item matching pred.
func (w *watch[T]) waitFor(t testing.TB, what string, pred func(T) bool) T {
	t.Helper()
	return w.waitN(t, what, 1, pred)[0]
}

// waitClosed waits for the end of the stream and returns every item.
func (w *watch[T]) waitClosed(t testing.TB, what string) []T {
	t.Helper()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	for {
		items, closed, changed := w.snapshot()
		if closed {
			return items
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; so far:\n%s", what, dump(items))
		}
	}
}

func dump[T any](items []T) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "\t%v\n", it)
	}
	return b.String()
}

// readLines feeds every line of r (without its "\n") into w and closes w at
// EOF. It reads every byte: a final line without "\n" is kept too.
func readLines(r io.Reader, w *watch[string]) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			w.add(strings.TrimSuffix(line, "\n"))
		}
		if err != nil {
			break
		}
	}
	w.close()
}

// proc is a subprocess with its three standard streams on os.Pipes the test
// owns (so exec's Wait never closes a pipe under a reader).
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File       // write end of the child's stdin
	stdout *os.File       // read end of the child's stdout; nil when read into out
	out    *watch[string] // stdout lines, when read by the harness (raw mode)
	log    *watch[string] // stderr lines
	exited chan struct{}
	err    error // exit status, valid once exited is closed

	stdinOnce sync.Once
	readers   sync.WaitGroup
}

// startProc starts name with args. With rawStdout the harness reads stdout
// into p.out; otherwise the test takes p.stdout (for a jsonrpc2.Conn).
func startProc(t *testing.T, rawStdout bool, env []string, name string, args ...string) *proc {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// A -race binary sleeps a second at exit (GORACE atexit_sleep_ms) so
	// late race reports can print; every test waits for exits, so skip it.
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Env = append(cmd.Env, env...)
	err = cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, log: newWatch[string](), exited: make(chan struct{})}
	p.readers.Add(1)
	go func() {
		defer p.readers.Done()
		readLines(errR, p.log)
		errR.Close()
	}()
	if rawStdout {
		p.out = newWatch[string]()
		p.stdout = nil
		p.readers.Add(1)
		go func() {
			defer p.readers.Done()
			readLines(outR, p.out)
			outR.Close()
		}()
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.closeStdin()
		select {
		case <-p.exited:
		case <-time.After(guard):
			t.Errorf("%s did not exit after its stdin was closed; killing it", name)
			_ = cmd.Process.Kill()
			<-p.exited
		}
		p.readers.Wait()
		if p.stdout != nil {
			p.stdout.Close()
		}
		if t.Failed() {
			items, _, _ := p.log.snapshot()
			t.Logf("stderr of %s:\n%s", name, dump(items))
		}
	})
	return p
}

func (p *proc) closeStdin() { p.stdinOnce.Do(func() { p.stdin.Close() }) }

// send writes lines to the child's stdin in one write, each ended by "\n".
func (p *proc) send(t testing.TB, lines ...string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatalf("writing to the child: %v", err)
	}
}

// waitExit waits for the child to exit and fails unless it exited 0.
func (p *proc) waitExit(t testing.TB) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(guard):
		t.Fatal("the child did not exit")
	}
	if p.err != nil {
		t.Fatalf("the child exited with %v", p.err)
	}
}

// finish is the end of a raw session: close stdin, read stdout to EOF, wait
// for a clean exit, and return every message the child wrote, each checked
// to be one JSON-RPC 2.0 object on its own line.
func (p *proc) finish(t testing.TB) []wireMsg {
	t.Helper()
	p.closeStdin()
	lines := p.out.waitClosed(t, "stdout EOF")
	p.waitExit(t)
	p.log.waitClosed(t, "stderr EOF")
	msgs := make([]wireMsg, len(lines))
	for i, l := range lines {
		msgs[i] = decodeWire(t, l)
	}
	return msgs
}

// awaitResponse waits for the response with the given raw id (`7` or `"7"`).
func (p *proc) awaitResponse(t testing.TB, id string) wireMsg {
	t.Helper()
	line := p.out.waitFor(t, "the response to id "+id, func(l string) bool {
		m, err := parseWire(l)
		return err == nil && m.Method == "" && string(m.ID) == id
	})
	return decodeWire(t, line)
}

// wireMsg is one JSON-RPC message as it appeared on the wire.
type wireMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

func (m wireMsg) String() string { return m.line }

func parseWire(line string) (wireMsg, error) {
	var m wireMsg
	m.line = line
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return m, err
	}
	if dec.More() {
		return m, errors.New("more than one JSON value on the line")
	}
	if m.JSONRPC != "2.0" {
		return m, fmt.Errorf("jsonrpc is %q, not \"2.0\"", m.JSONRPC)
	}
	return m, nil
}

// decodeWire parses a line the child wrote and fails the test unless it is
// one JSON-RPC 2.0 message (the stdio transport allows nothing else).
func decodeWire(t testing.TB, line string) wireMsg {
	t.Helper()
	m, err := parseWire(line)
	if err != nil {
		t.Fatalf("not a JSON-RPC 2.0 message: %v: %s", err, line)
	}
	return m
}

// assertResponses checks that msgs are responses, one to each id in ids
// (raw JSON ids) and nothing else: no response to a cancelled request, no
// reply to a notification, no request or notification from the server.
func assertResponses(t testing.TB, msgs []wireMsg, ids ...string) {
	t.Helper()
	var got []string
	for _, m := range msgs {
		if m.Method != "" || m.ID == nil {
			t.Errorf("unexpected message from the server: %s", m.line)
			continue
		}
		got = append(got, string(m.ID))
	}
	want := slices.Clone(ids)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("server answered ids %v, want exactly %v; stdout:\n%s", got, want, dump(msgs))
	}
}

// resultText returns the text of a tools/call result's first content block.
func resultText(t testing.TB, m wireMsg) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error response: %s", m.line)
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a tool result with content: %s", m.line)
	}
	return r.Content[0].Text
}

// request, notification and cancel build raw lines.
func request(id, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
}

func notification(method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
}

// cancel is notifications/cancelled naming id (raw JSON) with reason.
func cancel(id, reason string) string {
	return notification("notifications/cancelled", fmt.Sprintf(`{"requestId":%s,"reason":%s}`, id, strconv.Quote(reason)))
}

func sleepCall(id string, ms int) string {
	return request(id, "tools/call", fmt.Sprintf(`{"name":"sleep","arguments":{"ms":%d}}`, ms))
}

func initializeRequest(id, version string) string {
	return request(id, "initialize", fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"e2e-raw","version":"0"}}`, version))
}

// startServer starts the example server as a raw peer and initializes it
// with version; it returns the process once notifications/initialized is sent.
func startServer(t *testing.T, version string) *proc {
	t.Helper()
	p := startProc(t, true, nil, serverBin)
	p.send(t, initializeRequest("1", version))
	res := p.awaitResponse(t, "1")
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res.Result, &init); err != nil || init.ProtocolVersion != version {
		t.Fatalf("initialize %s: got %s", version, res.line)
	}
	p.send(t, notification("notifications/initialized", ""))
	return p
}

// logRecord parses one slog text line (key=value, values quoted when needed).
func logRecord(line string) map[string]string {
	rec := map[string]string{}
	for i := 0; i < len(line); {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		eq := strings.IndexByte(line[i:], '=')
		if eq < 0 {
			break
		}
		key := line[i : i+eq]
		i += eq + 1
		var val string
		if i < len(line) && line[i] == '"' {
			q, err := strconv.QuotedPrefix(line[i:])
			if err != nil {
				break
			}
			val, _ = strconv.Unquote(q)
			i += len(q)
		} else {
			end := strings.IndexByte(line[i:], ' ')
			if end < 0 {
				end = len(line) - i
			}
			val = line[i : i+end]
			i += end
		}
		rec[key] = val
	}
	return rec
}

// logHas matches log lines whose record has every key=value pair in kv.
func logHas(kv ...string) func(string) bool {
	return func(line string) bool {
		rec := logRecord(line)
		for i := 0; i+1 < len(kv); i += 2 {
			if v, ok := rec[kv[i]]; !ok || v != kv[i+1] {
				return false
			}
		}
		return true
	}
}

// spyWriter records every line written through it: the test sees exactly
// what an in-process client wrote to the server's stdin.
type spyWriter struct {
	w     io.WriteCloser
	mu    sync.Mutex
	buf   []byte
	lines *watch[string]
}

func newSpyWriter(w io.WriteCloser) *spyWriter {
	return &spyWriter{w: w, lines: newWatch[string]()}
}

func (s *spyWriter) Write(b []byte) (int, error) {
	n, err := s.w.Write(b)
	// Recorded after the write: the line may be recorded after the server
	// reacted to it, or after Close (the watch allows that).
	s.mu.Lock()
	s.buf = append(s.buf, b[:n]...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.lines.add(string(s.buf[:i]))
		s.buf = s.buf[i+1:]
	}
	s.mu.Unlock()
	return n, err
}

func (s *spyWriter) Close() error {
	s.lines.close()
	return s.w.Close()
}
