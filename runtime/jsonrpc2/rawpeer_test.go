package jsonrpc2

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawPeer is the other end of a stdio Conn, driven byte for byte by the test:
// it writes raw lines and reads every line the Conn writes, so tests assert on
// the wire itself rather than on what a second Conn makes of it.
type rawPeer struct {
	t     testing.TB
	conn  *Conn
	toC   *io.PipeWriter
	lines chan string // every line the Conn wrote, in order; closed at EOF
}

// newRawPeer returns a started Conn on the stdio transport and its raw peer.
// Cleanup closes the Conn and checks nothing is left unread only when the
// test asks (finish).
func newRawPeer(t testing.TB, opts ...Option) *rawPeer {
	t.Helper()
	fromC, cOut := io.Pipe()
	cIn, toC := io.Pipe()
	p := &rawPeer{t: t, toC: toC, lines: make(chan string, 1<<16)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(fromC)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		fromC.Close()
	}()
	all := append([]Option{WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny))}, opts...)
	p.conn = NewConn(NewStdioTransport(cIn, cOut, StdioOptions{MaxMessageSize: 1 << 16}), all...)
	p.conn.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.conn.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		toC.Close()
		for range p.lines {
		}
	})
	return p
}

// send writes s and a newline to the Conn.
func (p *rawPeer) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.toC, s+"\n"); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// next returns the next line the Conn wrote.
func (p *rawPeer) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("connection closed its output")
		}
		return l
	case <-time.After(10 * time.Second):
		p.t.Fatal("timed out waiting for a line")
	}
	return ""
}

// nextJSON returns the next line decoded, with numbers kept exact.
func (p *rawPeer) nextJSON() map[string]any {
	p.t.Helper()
	l := p.next()
	return decodeLine(p.t, l)
}

func decodeLine(t testing.TB, l string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(l))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("line %q is not a JSON object: %v", l, err)
	}
	return m
}

// sync proves everything the Conn did before now has reached the wire: it
// sends a ping with a unique id and returns the lines written before the
// ping's answer.
func (p *rawPeer) sync(id string) []string {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}`)
	var before []string
	for {
		l := p.next()
		if strings.Contains(l, `"id":"`+id+`"`) {
			return before
		}
		before = append(before, l)
	}
}

// closeAndDrain closes the Conn (waiting for every handler) and returns every
// line it wrote that the test has not read yet.
func (p *rawPeer) closeAndDrain() []string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.conn.Close(ctx); err != nil {
		p.t.Fatalf("Close: %v", err)
	}
	var rest []string
	for l := range p.lines {
		rest = append(rest, l)
	}
	return rest
}

// logCapture is a slog handler that records messages and attributes.
type logCapture struct {
	mu      sync.Mutex
	records []string
}

func (l *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCapture) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, b.String())
	l.mu.Unlock()
	return nil
}
func (l *logCapture) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCapture) WithGroup(string) slog.Handler      { return l }
func (l *logCapture) contains(sub ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
outer:
	for _, r := range l.records {
		for _, s := range sub {
			if !strings.Contains(r, s) {
				continue outer
			}
		}
		return true
	}
	return false
}

// eventLog collects observer events.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	ch     chan Event
}

func newEventLog() *eventLog { return &eventLog{ch: make(chan Event, 1<<16)} }

func (e *eventLog) observe(ev Event) {
	e.mu.Lock()
	e.events = append(e.events, ev)
	e.mu.Unlock()
	select {
	case e.ch <- ev:
	default:
	}
}

// waitFor returns the first event (from now on, in the channel) matching f.
func (e *eventLog) waitFor(t testing.TB, f func(Event) bool) Event {
	t.Helper()
	for {
		select {
		case ev := <-e.ch:
			if f(ev) {
				return ev
			}
		case <-time.After(10 * time.Second):
			t.Fatal("timed out waiting for an observer event")
		}
	}
}

func (e *eventLog) snapshot() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.events...)
}

func slogOf(h slog.Handler) *slog.Logger { return slog.New(h) }
