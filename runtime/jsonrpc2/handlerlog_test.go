package jsonrpc2

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// logRecorder is a slog.Handler that hands every record to a channel, with its
// attributes as strings.
type logRecorder struct {
	level slog.Level
	recs  chan logged
}

type logged struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func newRecorder(level slog.Level) *logRecorder {
	return &logRecorder{level: level, recs: make(chan logged, 1024)}
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= r.level }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	l := logged{level: rec.Level, msg: rec.Message, attrs: map[string]string{}}
	rec.Attrs(func(a slog.Attr) bool { l.attrs[a.Key] = a.Value.String(); return true })
	r.recs <- l
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// next returns the next record whose message contains msg, skipping others.
func (r *logRecorder) next(t *testing.T, msg string) logged {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l := <-r.recs:
			if strings.Contains(l.msg, msg) {
				return l
			}
		case <-deadline:
			t.Fatalf("no log record %q", msg)
		}
	}
}

func panickyHandler(context.Context, *Request) (any, error) { panic("boom") }

// Issue 26, must-show 4: a handler's panic is answered -32603 and logged at
// Error with the stack it happened on (naming the handler's function);
// a handler that panics on every request does not flood the log: past the
// burst, lines are suppressed and the next one says how many.
func TestHandlerPanicLoggedWithStack(t *testing.T) {
	rec := newRecorder(slog.LevelWarn)
	p := newRawPeer(t, WithLogger(slog.New(rec)))
	p.conn.Handle("boom", panickyHandler)
	const n = 3 * panicLogBurst
	for i := 0; i < n; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"boom"}`, i))
	}
	for i := 0; i < n; i++ {
		if l := p.next(); !strings.Contains(l, `"code":-32603`) {
			t.Fatalf("panicking handler answered with %s", l)
		}
	}
	first := rec.next(t, "request handler panicked")
	if first.level != slog.LevelError || first.attrs["method"] != "boom" || first.attrs["panic"] != "boom" ||
		!strings.Contains(first.attrs["stack"], "jsonrpc2.panickyHandler") {
		t.Fatalf("panic logged as %+v", first)
	}
	logged := 1
	for i := 1; i < panicLogBurst; i++ {
		rec.next(t, "request handler panicked")
		logged++
	}
	// The burst is spent (the limiter refills at one line a second; the
	// test refills it by hand): the next line says how many it suppressed.
	p.conn.panicLimit.mu.Lock()
	p.conn.panicLimit.tokens = 1
	p.conn.panicLimit.mu.Unlock()
	p.send(`{"jsonrpc":"2.0","id":"last","method":"boom"}`)
	p.next()
	last := rec.next(t, "request handler panicked")
	if last.attrs["suppressed"] == "" || last.attrs["id"] != `"last"` {
		t.Fatalf("line after the suppressed ones: %+v", last)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for len(rec.recs) > 0 {
		if l := <-rec.recs; strings.Contains(l.msg, "panicked") {
			logged++
		}
	}
	t.Logf("%d panics: %d logged, then one saying %s were suppressed", n+1, logged, last.attrs["suppressed"])
	if logged > panicLogBurst+1 {
		t.Errorf("%d panics logged %d times: not rate-limited", n, logged)
	}
}

// Issue 26, must-show 4: a handler still running WithCancelGrace after its
// request was cancelled is logged once, at Warn, as ignoring its context,
// with its method and id; a handler that returns when cancelled is not.
func TestHandlerIgnoringCancelLoggedOnce(t *testing.T) {
	rec := newRecorder(slog.LevelWarn)
	p := newRawPeer(t, WithLogger(slog.New(rec)), WithCancelGrace(20*time.Millisecond))
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	exited := make(chan struct{})
	p.conn.Handle("stubborn", func(ctx context.Context, req *Request) (any, error) {
		defer close(exited)
		started <- struct{}{}
		<-release // ignores ctx
		return nil, ctx.Err()
	})
	p.conn.Handle("polite", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	p.send(`{"jsonrpc":"2.0","id":"s","method":"stubborn"}`)
	p.send(`{"jsonrpc":"2.0","id":"p","method":"polite"}`)
	<-started
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"p","reason":"bye"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s","reason":"bye"}}`)
	w := rec.next(t, "ignores its cancelled context")
	if w.level != slog.LevelWarn || w.attrs["id"] != `"s"` || w.attrs["method"] != "stubborn" || !strings.Contains(w.attrs["cause"], "bye") {
		t.Fatalf("stuck handler logged as %+v", w)
	}
	// Past another grace: no second line, and none for the polite one.
	time.Sleep(100 * time.Millisecond) // five graces, for a line that must not come
	close(release)
	<-exited
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for len(rec.recs) > 0 {
		if l := <-rec.recs; strings.Contains(l.msg, "ignores") {
			t.Errorf("second stuck-handler line: %+v", l)
		}
	}
}
