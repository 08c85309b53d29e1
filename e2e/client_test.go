package e2e

// Client-side rules, through each revision's generated client API
// (NewServerCaller over a jsonrpc2.Conn with the revision's Policy) talking
// to a real subprocess: the example server, or the test binary running as a
// scripted fake server that does what a careful server would not.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// call runs a tools/call in the background; the channel gets its outcome.
func (s *clientSession) call(ctx context.Context, a api, name string, arguments map[string]json.RawMessage) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := a.callTool(ctx, name, arguments)
		errc <- err
	}()
	return errc
}

func await(t testing.TB, errc <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(guard):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

// cancelNote is a notifications/cancelled line the client wrote.
type cancelNote struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    *string         `json:"reason"`
}

func isCancelNote(line string) bool {
	m, err := parseWire(line)
	return err == nil && m.Method == "notifications/cancelled" && m.ID == nil
}

func parseCancelNote(t testing.TB, line string) cancelNote {
	t.Helper()
	var n cancelNote
	if err := json.Unmarshal(decodeWire(t, line).Params, &n); err != nil {
		t.Fatalf("cancellation params: %v: %s", err, line)
	}
	return n
}

// requestIDOf returns the raw id of the first request for method the client
// wrote.
func requestIDOf(t testing.TB, sent *watch[string], method string) string {
	t.Helper()
	line := sent.waitFor(t, "the "+method+" request on the wire", func(l string) bool {
		m, err := parseWire(l)
		return err == nil && m.Method == method && m.ID != nil
	})
	return string(decodeWire(t, line).ID)
}

// TestClientCancelThroughGeneratedAPI: ending the ctx of a generated
// CallTool returns context.Canceled at once and puts exactly one
// notifications/cancelled {requestId, reason: the ctx's cause} on the wire;
// the server's handler ends with that reason, and the session goes on.
func TestClientCancelThroughGeneratedAPI(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		s := startSession(t, rev, nil, serverBin)
		s.initialize(t)
		reason := "e2e: user pressed stop in " + rev.version
		ctx, cancel := context.WithCancelCause(context.Background())
		errc := s.call(ctx, s.api, "sleep", args("ms", "600001"))
		s.p.log.waitFor(t, "sleep to start", logHas("msg", "sleep started", "ms", "600001"))
		cancel(errors.New(reason))
		if err := await(t, errc, "the cancelled CallTool"); !errors.Is(err, context.Canceled) {
			t.Fatalf("CallTool returned %v, want context.Canceled", err)
		}

		id := requestIDOf(t, s.sent, "tools/call")
		n := parseCancelNote(t, s.sent.waitFor(t, "notifications/cancelled on the wire", isCancelNote))
		if string(n.RequestID) != id || n.Reason == nil || *n.Reason != reason {
			t.Errorf("sent %s/%v, want requestId %s with reason %q", n.RequestID, n.Reason, id, reason)
		}
		s.p.log.waitFor(t, "the handler to end with the reason", logHas(
			"msg", "sleep interrupted", "id", id, "source", "peer notification", "reason", reason))

		got, err := s.api.callTool(context.Background(), "echo", args("text", `"still here"`))
		if err != nil || got != "still here" {
			t.Fatalf("echo after the cancellation: %q, %v", got, err)
		}
		// A call whose ctx ended before it was written is neither written
		// nor cancelled on the wire.
		dead, kill := context.WithCancel(context.Background())
		kill()
		if _, err := s.api.callTool(dead, "echo", args("text", `"never sent"`)); !errors.Is(err, context.Canceled) {
			t.Errorf("call with a dead ctx returned %v", err)
		}
		s.close(t)
		sent, _, _ := s.sent.snapshot()
		if notes := slices.DeleteFunc(slices.Clone(sent), func(l string) bool { return !isCancelNote(l) }); len(notes) != 1 {
			t.Errorf("want exactly one notifications/cancelled, the client wrote:\n%s", dump(sent))
		}
		if slices.ContainsFunc(sent, func(l string) bool { return strings.Contains(l, "never sent") }) {
			t.Errorf("a call with a dead ctx was written:\n%s", dump(sent))
		}
	})
}

// TestClientTimeoutSendsCancellation: jsonrpc2.WithTimeout and
// jsonrpc2.WithMaxTimeout (with progress reset on) make a generated call
// return a *jsonrpc2.CancelError saying which limit fired, and the
// notifications/cancelled they send carries a reason naming the timeout,
// which the server's handler sees (lifecycle.mdx "Timeouts", 2025-03-26 on).
func TestClientTimeoutSendsCancellation(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		if !rev.timeoutCancels {
			t.Skip(rev.version + " has no rule that a timeout sends notifications/cancelled")
		}
		s := startSession(t, rev, nil, serverBin)
		s.initialize(t)
		limits := []struct {
			name string
			opts []jsonrpc2.CallOption
			src  jsonrpc2.CancelSource
			ms   string
			want string // in the reason
		}{
			{"WithTimeout", []jsonrpc2.CallOption{jsonrpc2.WithTimeout(250 * time.Millisecond)},
				jsonrpc2.SourceTimeout, "600011", "250ms timeout"},
			{"WithMaxTimeout", []jsonrpc2.CallOption{jsonrpc2.WithTimeout(time.Hour), jsonrpc2.WithProgressReset(), jsonrpc2.WithMaxTimeout(250 * time.Millisecond)},
				jsonrpc2.SourceMaxTimeout, "600012", "250ms maximum timeout"},
		}
		for i, l := range limits {
			a := rev.api(s.conn, l.opts...)
			_, err := a.callTool(context.Background(), "sleep", args("ms", l.ms))
			var ce *jsonrpc2.CancelError
			if !errors.As(err, &ce) || ce.Source != l.src || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s: CallTool returned %v, want a *jsonrpc2.CancelError from %v", l.name, err, l.src)
			}
			if !strings.Contains(ce.Reason, l.want) {
				t.Errorf("%s: reason %q does not name the limit (%q)", l.name, ce.Reason, l.want)
			}
			n := parseCancelNote(t, s.sent.waitN(t, "notifications/cancelled on the wire", i+1, isCancelNote)[i])
			if n.Reason == nil || *n.Reason != ce.Reason || string(n.RequestID) != ce.ID.String() {
				t.Errorf("%s: sent %s/%v, want requestId %s with reason %q", l.name, n.RequestID, n.Reason, ce.ID, ce.Reason)
			}
			// The server applies it. (Its handler may not have started yet
			// on a loaded machine, so this is the server's observer record,
			// which the runtime writes either way.)
			s.p.log.waitFor(t, "the server to apply the cancellation with the timeout reason", logHas(
				"msg", "cancellation", "event", "applied", "id", ce.ID.String(), "source", "peer notification", "reason", ce.Reason))
		}
	})
}

// TestClientCancelNotLostOnClose: the caller cancels, CallTool returns, and
// the client closes the connection at once: the notification is flushed
// before stdin is closed, so the server's handler is cancelled by the peer's
// notification (with its reason), not by the EOF that follows. Three
// sessions per revision.
func TestClientCancelNotLostOnClose(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		for i := range 3 {
			s := startSession(t, rev, nil, serverBin)
			s.initialize(t)
			reason := "e2e: cancel then close"
			ctx, cancel := context.WithCancelCause(context.Background())
			errc := s.call(ctx, s.api, "sleep", args("ms", "600001"))
			s.p.log.waitFor(t, "sleep to start", logHas("msg", "sleep started", "ms", "600001"))
			cancel(errors.New(reason))
			if err := await(t, errc, "the cancelled CallTool"); !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: CallTool returned %v", i, err)
			}
			s.close(t) // immediately
			rec := logRecord(s.p.log.waitFor(t, "the handler to be cancelled", logHas("msg", "sleep interrupted")))
			if rec["source"] != "peer notification" || rec["reason"] != reason {
				t.Errorf("run %d: handler cancelled by %s (%q), want the peer's notification %q", i, rec["source"], rec["reason"], reason)
			}
		}
	})
}

// TestClientDropsLateResponse: a server that answers a request after the
// client cancelled it (the fake does) does not disturb the client: the
// cancelled CallTool has already returned context.Canceled, the late
// response is dropped, and the next calls get their own answers.
func TestClientDropsLateResponse(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		s := startSession(t, rev, []string{fakeServerEnv + "=late"}, selfExe(t))
		s.initialize(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		errc := s.call(ctx, s.api, "sleep", args("ms", "1"))
		id := logRecord(s.p.log.waitFor(t, "the fake to hold the call", logHas("msg", "holding")))["id"]
		cancel(errors.New("e2e: give up"))
		if err := await(t, errc, "the cancelled CallTool"); !errors.Is(err, context.Canceled) {
			t.Fatalf("CallTool returned %v, want context.Canceled", err)
		}
		// The fake writes the late response when it reads the cancellation,
		// before it reads anything else from us.
		s.p.log.waitFor(t, "the late response", logHas("msg", "late response sent", "id", id))
		got, err := s.api.callTool(context.Background(), "echo", args("text", `"fresh"`))
		if err != nil || got != "fresh" {
			t.Fatalf("echo after the late response: %q, %v (the late response must not be delivered)", got, err)
		}
		if err := s.api.ping(context.Background()); err != nil {
			t.Fatalf("ping: %v", err)
		}
		s.close(t)
		n := parseCancelNote(t, s.sent.waitFor(t, "notifications/cancelled on the wire", isCancelNote))
		if string(n.RequestID) != id || n.Reason == nil || *n.Reason != "e2e: give up" {
			t.Errorf("sent cancellation %s/%v, want requestId %s with the cause as reason", n.RequestID, n.Reason, id)
		}
	})
}

// TestClientNeverCancelsInitialize: when the caller gives up on initialize
// (its ctx deadline, or jsonrpc2.WithTimeout), the generated Initialize
// returns, but no notifications/cancelled is written: the observer reports
// the cancellation as ignored because initialize is never cancellable.
func TestClientNeverCancelsInitialize(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		s := startSession(t, rev, []string{fakeServerEnv + "=silent-init"}, selfExe(t))

		ctx, cancel := context.WithTimeoutCause(context.Background(), 200*time.Millisecond, errors.New("e2e: gave up on initialize"))
		defer cancel()
		if _, err := s.api.initialize(ctx, rev.version); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Initialize with a deadline returned %v", err)
		}
		a := rev.api(s.conn, jsonrpc2.WithTimeout(200*time.Millisecond))
		if _, err := a.initialize(context.Background(), rev.version); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Initialize with WithTimeout returned %v", err)
		}
		s.events.waitN(t, "two ignored cancellations of initialize", 2, func(e jsonrpc2.Event) bool {
			return e.Kind == jsonrpc2.EventIgnored && e.Method == "initialize" && e.Why == jsonrpc2.IgnoreNotCancellable
		})
		s.close(t)

		// What the fake read, every line: two initialize requests and no
		// cancellation.
		s.p.log.waitFor(t, "the fake to exit", logHas("msg", "fake server exiting"))
		var methods []string
		logs, _, _ := s.p.log.snapshot()
		for _, l := range logs {
			if rec := logRecord(l); rec["msg"] == "recv" {
				methods = append(methods, decodeWire(t, rec["line"]).Method)
			}
		}
		if !slices.Equal(methods, []string{"initialize", "initialize"}) {
			t.Errorf("the fake read methods %q, want two initialize and no notifications/cancelled", methods)
		}
	})
}

// TestClientCancelThenCloseConcurrently: the caller's ctx is cancelled and,
// without waiting for CallTool to return, another goroutine closes the
// connection (think: Ctrl-C cancels everything and shuts down). The call
// returns context.Canceled, and the server's handler is cancelled by the
// notification, with the caller's reason, not merely by the EOF right
// behind it: whichever of CallTool and Close takes the call back, the
// runtime queues the cancellation before Close flushes and closes the pipe.
func TestClientCancelThenCloseConcurrently(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		const runs = 5
		lost := 0
		for i := range runs {
			s := startSession(t, rev, nil, serverBin)
			s.initialize(t)
			ctx, cancel := context.WithCancelCause(context.Background())
			errc := s.call(ctx, s.api, "sleep", args("ms", "600001"))
			s.p.log.waitFor(t, "sleep to start", logHas("msg", "sleep started", "ms", "600001"))
			cancel(errors.New("e2e: ctrl-c"))
			s.close(t) // concurrently with the caller noticing its ctx ended
			if err := await(t, errc, "the cancelled CallTool"); !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: CallTool returned %v", i, err)
			}
			rec := logRecord(s.p.log.waitFor(t, "the handler to be cancelled", logHas("msg", "sleep interrupted")))
			switch {
			case rec["source"] == "peer notification" && rec["reason"] == "e2e: ctrl-c":
			case rec["source"] == "transport closed":
				lost++
			default:
				t.Errorf("run %d: handler cancelled by %s (%q)", i, rec["source"], rec["reason"])
			}
		}
		if lost > 0 {
			t.Errorf("%d of %d runs: Close won the race and the notification (with its reason) was not sent; the server saw only EOF", lost, runs)
		}
	})
}
