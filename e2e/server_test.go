package e2e

// Server-side rules, checked on the bytes: the test is a raw JSON-RPC client
// writing lines to the example server's stdin and reading every line of its
// stdout, and it reads the server's stderr log to see what its handlers and
// its runtime observer saw.

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestServerNegotiatesRevision: initialize answers the client's version when
// it is one of the four supported, and otherwise the latest (lifecycle.mdx);
// ping and tools/list work in every revision.
func TestServerNegotiatesRevision(t *testing.T) {
	cases := map[string]string{"2099-01-01": "2025-11-25", "2026-07-28": "2025-11-25"}
	for _, rev := range revisions {
		cases[rev.version] = rev.version
	}
	for asked, want := range cases {
		t.Run(asked, func(t *testing.T) {
			t.Parallel()
			p := startProc(t, true, nil, serverBin)
			p.send(t, initializeRequest("1", asked))
			var init struct {
				ProtocolVersion string `json:"protocolVersion"`
				Capabilities    struct {
					Tools *struct{} `json:"tools"`
				} `json:"capabilities"`
				ServerInfo struct{ Name string } `json:"serverInfo"`
			}
			if err := json.Unmarshal(p.awaitResponse(t, "1").Result, &init); err != nil {
				t.Fatal(err)
			}
			if init.ProtocolVersion != want || init.Capabilities.Tools == nil || init.ServerInfo.Name == "" {
				t.Fatalf("asked %s: got %+v, want protocolVersion %s with the tools capability", asked, init, want)
			}
			p.send(t, notification("notifications/initialized", ""), request("2", "ping", ""), request("3", "tools/list", ""))
			if ping := p.awaitResponse(t, "2"); string(ping.Result) != "{}" {
				t.Errorf("ping answered %s, want {}", ping.line)
			}
			var list struct {
				Tools []struct {
					Name        string `json:"name"`
					InputSchema struct {
						Type       string                           `json:"type"`
						Properties map[string]struct{ Type string } `json:"properties"`
						Required   []string                         `json:"required"`
						Extra      map[string]json.RawMessage       `json:"-"`
					} `json:"inputSchema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(p.awaitResponse(t, "3").Result, &list); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"sleep": "ms:integer", "echo": "text:string"}
			for _, tool := range list.Tools {
				s := tool.InputSchema
				for prop, sch := range s.Properties {
					if got := prop + ":" + sch.Type; got == want[tool.Name] && s.Type == "object" && slices.Equal(s.Required, []string{prop}) {
						delete(want, tool.Name)
					}
				}
			}
			if len(want) != 0 {
				t.Errorf("tools/list lacks %v: %+v", want, list)
			}
			assertResponses(t, p.finish(t), "1", "2", "3")
		})
	}
}

// TestServerCancelledRequestGetsNoResponse: notifications/cancelled for a
// running tools/call ends the handler's ctx with the peer's reason (the
// handler logs context.Cause), and no response is ever written for it; the
// session goes on.
func TestServerCancelledRequestGetsNoResponse(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		p := startServer(t, rev.version)
		p.send(t, sleepCall("2", 600002))
		p.log.waitFor(t, "sleep 2 to start", logHas("msg", "sleep started", "ms", "600002"))

		reason := "e2e: user pressed stop in " + rev.version
		p.send(t, cancel("2", reason))
		p.log.waitFor(t, "the handler's ctx to end with the reason", logHas(
			"msg", "sleep interrupted", "id", "2", "source", "peer notification", "reason", reason))
		p.log.waitFor(t, "the observer to log the applied cancellation", logHas(
			"msg", "cancellation", "event", "applied", "id", "2", "method", "tools/call", "reason", reason))

		p.send(t, request("3", "ping", ""))
		p.awaitResponse(t, "3")
		// Every byte the server wrote until EOF: no response to id 2.
		assertResponses(t, p.finish(t), "1", "3")
	})
}

// Why the runtime ignored a cancellation, as the observer logs it.
const (
	whyUnknown     = "unknown or completed request"
	whyMalformed   = "malformed notification"
	whyNoRequestID = "no requestId"
	whyNever       = "method is never cancellable"
)

// TestServerIgnoresInvalidCancellations: cancellations of an unknown id, of
// a completed request, and malformed ones (params missing or not an object,
// requestId missing or not a string/integer to JSON Schema, reason not a
// string) are
// ignored with a logged reason; none of them touches the request in flight,
// none gets an answer, and the session goes on.
func TestServerIgnoresInvalidCancellations(t *testing.T) {
	const note = "notifications/cancelled"
	cases := []struct {
		name string
		line string
		why  []string
	}{
		{"unknown id", cancel("99", "x"), []string{whyUnknown}},
		{"completed id", cancel("3", "x"), []string{whyUnknown}},
		{"string id naming the integer id in flight", cancel(`"5"`, "x"), []string{whyUnknown}},
		{"params missing", notification(note, ""), []string{whyMalformed}},
		{"params null", notification(note, "null"), []string{whyMalformed}},
		{"params not an object", notification(note, "[5]"), []string{whyMalformed}},
		// requestId is required up to 2025-06-18 and optional (for task
		// cancellation) in 2025-11-25; either way there is nothing to cancel.
		{"requestId missing", notification(note, `{"reason":"x"}`), []string{whyMalformed, whyNoRequestID}},
		{"requestId true", notification(note, `{"requestId":true}`), []string{whyMalformed}},
		{"requestId null", notification(note, `{"requestId":null}`), []string{whyMalformed}},
		// 5.0 and 5e0 are the integer 5 to JSON Schema, so the revision's
		// decoder accepts them: the final cancellation below uses one.
		{"requestId 5.5", notification(note, `{"requestId":5.5}`), []string{whyMalformed}},
		{"requestId object", notification(note, `{"requestId":{"id":5}}`), []string{whyMalformed}},
		{"requestId array", notification(note, `{"requestId":[5]}`), []string{whyMalformed}},
		{"reason a number", notification(note, `{"requestId":5,"reason":42}`), []string{whyMalformed}},
		{"reason null", notification(note, `{"requestId":5,"reason":null}`), []string{whyMalformed}},
		{"reason an object", notification(note, `{"requestId":5,"reason":{"text":"x"}}`), []string{whyMalformed}},
	}
	forEachRevision(t, func(t *testing.T, rev revision) {
		p := startServer(t, rev.version)
		p.send(t, sleepCall("5", 600005))
		p.log.waitFor(t, "sleep 5 to start", logHas("msg", "sleep started", "ms", "600005"))
		p.send(t, request("3", "tools/call", `{"name":"echo","arguments":{"text":"done"}}`))
		if got := resultText(t, p.awaitResponse(t, "3")); got != "done" {
			t.Fatalf("echo answered %q", got)
		}

		lines := make([]string, len(cases))
		for i, c := range cases {
			lines[i] = c.line
		}
		p.send(t, lines...)
		p.send(t, request("10", "ping", ""))
		p.awaitResponse(t, "10")

		// The read loop handles messages in order, so the i-th ignored
		// event is the i-th notification.
		ignored := p.log.waitN(t, "one ignored event per invalid cancellation", len(cases),
			logHas("msg", "cancellation", "event", "ignored"))
		for i, c := range cases {
			if why := logRecord(ignored[i])["why"]; !slices.Contains(c.why, why) {
				t.Errorf("%s: ignored because %q, want one of %q (log: %s)", c.name, why, c.why, ignored[i])
			}
		}

		// Request 5 is still running: a valid cancellation is the first to
		// reach its handler. It writes the id as 5e0, which the schema reads
		// as the integer 5, and so does the runtime, which runs the decoder
		// generated from it.
		p.send(t, cancel("5e0", "finally"))
		rec := logRecord(p.log.waitFor(t, "sleep 5 to be interrupted", logHas("msg", "sleep interrupted", "id", "5")))
		if rec["reason"] != "finally" {
			t.Errorf("sleep 5 was interrupted by %q, want the valid cancellation", rec["cause"])
		}
		assertResponses(t, p.finish(t), "1", "3", "10")
	})
}

// TestServerNeverCancelsInitialize: a cancellation naming the initialize
// request, sent in the same write as the request, is ignored and initialize
// is answered; the session then works.
func TestServerNeverCancelsInitialize(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		p := startProc(t, true, nil, serverBin)
		// A large (valid) capabilities.experimental makes the handler spend
		// a while decoding, so the cancellation right behind it is read while
		// initialize is in flight, the case the rule is about. The server
		// must ignore it whichever way that race goes.
		pad := strings.Repeat("x", 256<<10)
		init := request("1", "initialize", fmt.Sprintf(
			`{"protocolVersion":%q,"capabilities":{"experimental":{"pad":{"p":%q}}},"clientInfo":{"name":"e2e-raw","version":"0"}}`,
			rev.version, pad))
		p.send(t, init, cancel("1", "e2e: cancelling initialize"))
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(p.awaitResponse(t, "1").Result, &res); err != nil || res.ProtocolVersion != rev.version {
			t.Fatalf("initialize was not answered with %s", rev.version)
		}
		rec := logRecord(p.log.waitFor(t, "the ignored cancellation of initialize", logHas(
			"msg", "cancellation", "event", "ignored", "id", "1")))
		switch rec["why"] {
		case whyNever:
			t.Logf("cancel read while initialize was in flight: ignored (%s)", rec["why"])
		case whyUnknown:
			t.Logf("cancel read after initialize was answered: ignored (%s)", rec["why"])
		default:
			t.Errorf("ignored because %q", rec["why"])
		}
		p.send(t, notification("notifications/initialized", ""), request("2", "ping", ""))
		p.awaitResponse(t, "2")
		assertResponses(t, p.finish(t), "1", "2")
		if logs, _, _ := p.log.snapshot(); slices.ContainsFunc(logs, logHas("event", "applied")) {
			t.Errorf("a cancellation was applied:\n%s", dump(logs))
		}
	})
}

// TestServerStringAndIntegerIDsDiffer: "7" and 7 are different requests. A
// cancellation naming "7" ends only the string one, and one naming 8 ends
// only the integer one; the others complete and are answered with their ids
// exactly as sent.
func TestServerStringAndIntegerIDsDiffer(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		p := startServer(t, rev.version)
		p.send(t, sleepCall("7", 300), sleepCall(`"7"`, 600007), sleepCall(`"8"`, 301), sleepCall("8", 600008))
		for _, ms := range []string{"300", "600007", "301", "600008"} {
			p.log.waitFor(t, "sleep "+ms+" to start", logHas("msg", "sleep started", "ms", ms))
		}
		p.send(t, cancel(`"7"`, "cancel the string seven"), cancel("8", "cancel the integer eight"))
		p.log.waitFor(t, `request "7" to be cancelled`, logHas(
			"msg", "sleep interrupted", "id", `"7"`, "ms", "600007", "reason", "cancel the string seven"))
		p.log.waitFor(t, "request 8 to be cancelled", logHas(
			"msg", "sleep interrupted", "id", "8", "ms", "600008", "reason", "cancel the integer eight"))

		if got := resultText(t, p.awaitResponse(t, "7")); got != "slept 300 ms" {
			t.Errorf("integer 7 answered %q", got)
		}
		if got := resultText(t, p.awaitResponse(t, `"8"`)); got != "slept 301 ms" {
			t.Errorf(`string "8" answered %q`, got)
		}
		assertResponses(t, p.finish(t), "1", "7", `"8"`)
	})
}

// TestServerEOFCancelsInFlight: EOF on stdin cancels every in-flight
// handler (cause: transport closed), none of them is answered, and the
// server exits 0.
func TestServerEOFCancelsInFlight(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		p := startServer(t, rev.version)
		p.send(t, sleepCall("2", 600002), sleepCall(`"two"`, 600003))
		p.log.waitFor(t, "sleep 2 to start", logHas("msg", "sleep started", "ms", "600002"))
		p.log.waitFor(t, `sleep "two" to start`, logHas("msg", "sleep started", "ms", "600003"))
		// One more, read right before EOF: it may be cancelled before its
		// handler even starts; either way it gets no response.
		p.send(t, sleepCall("3", 600004))
		p.closeStdin()

		for _, id := range []string{"2", `"two"`} {
			p.log.waitFor(t, "sleep "+id+" to be cancelled by EOF", logHas(
				"msg", "sleep interrupted", "id", id, "source", "transport closed"))
		}
		assertResponses(t, p.finish(t), "1")
		p.log.waitFor(t, "the server's exit log", logHas("msg", "stdio-server exiting", "source", "transport closed"))
	})
}

// TestServerTaskMetadataWithoutTasksCapability: before 2025-11-25 there are
// no tasks, so the example server declares no tasks capability to such a
// client and a tools/call carrying task metadata is processed normally, the
// metadata ignored ("task" is just an unknown member; 2025-11-25 tasks.mdx
// asks the same of receivers without the capability). Being an ordinary
// request, it is cancelled by notifications/cancelled like any other, and
// not answered. (From 2025-11-25 on sleep runs as a task: tasks_test.go.)
func TestServerTaskMetadataWithoutTasksCapability(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		if rev.version >= "2025-11-25" {
			t.Skip("tasks exist from 2025-11-25: TestServerSleepAsTask")
		}
		p := startServer(t, rev.version)
		p.send(t, request("2", "tools/call", `{"name":"sleep","arguments":{"ms":600021},"task":{"ttl":60000}}`))
		p.log.waitFor(t, "sleep 2 to start", logHas("msg", "sleep started", "ms", "600021"))
		p.send(t, cancel("2", "stop the task-looking call"))
		p.log.waitFor(t, "the handler's ctx to end with the reason", logHas(
			"msg", "sleep interrupted", "id", "2", "source", "peer notification", "reason", "stop the task-looking call"))
		p.send(t, request("3", "ping", ""))
		p.awaitResponse(t, "3")
		assertResponses(t, p.finish(t), "1", "3")
	})
}

// TestServerSIGTERM: the second step of the stdio shutdown (lifecycle.mdx)
// is SIGTERM. The server cancels its in-flight handlers (cause: connection
// closed), answers none of them and exits 0.
func TestServerSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on windows")
	}
	t.Parallel()
	p := startServer(t, "2025-11-25")
	p.send(t, sleepCall("2", 600002))
	p.log.waitFor(t, "sleep 2 to start", logHas("msg", "sleep started", "ms", "600002"))
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.log.waitFor(t, "sleep 2 to be cancelled by the shutdown", logHas(
		"msg", "sleep interrupted", "id", "2", "source", "connection closed"))
	assertResponses(t, p.finish(t), "1")
}

// TestServerIDsAndFraming: request ids come back exactly as sent (an
// integer beyond 2^53, a string that looks like a number); a request whose
// id is a fraction, boolean, null, object or array gets -32600 with id null;
// a line that is not JSON gets -32700 and the next line is still served.
func TestServerIDsAndFraming(t *testing.T) {
	forEachRevision(t, func(t *testing.T, rev revision) {
		p := startServer(t, rev.version)
		exact := []string{"9007199254740993", `"9007199254740993"`, "-0", `""`}
		for _, id := range exact {
			p.send(t, request(id, "ping", ""))
			if got := string(p.awaitResponse(t, id).ID); got != id {
				t.Errorf("ping %s answered with id %s", id, got)
			}
		}
		bad := []string{"1.5", "true", "null", `{"n":1}`, "[1]"}
		for _, id := range bad {
			p.send(t, request(id, "ping", ""))
		}
		p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"`, request("3", "ping", "")) // a truncated line, then a good one
		p.awaitResponse(t, "3")
		// Wait for the error replies before closing stdin: at EOF the
		// runtime drops replies it has not written yet.
		want := []int{-32600, -32600, -32600, -32600, -32600, -32700}
		nulls := p.out.waitN(t, "the error replies (id null)", len(want), func(l string) bool {
			m, err := parseWire(l)
			return err == nil && string(m.ID) == "null"
		})
		var codes []int
		for _, l := range nulls {
			if m := decodeWire(t, l); m.Error != nil {
				codes = append(codes, m.Error.Code)
			} else {
				t.Errorf("id null without an error: %s", l)
			}
		}
		if !slices.Equal(codes, want) {
			t.Errorf("errors with id null: %v, want %v (in order)", codes, want)
		}
		ids := append([]string{"1", "3"}, exact...)
		for range want {
			ids = append(ids, "null")
		}
		assertResponses(t, p.finish(t), ids...)
	})
}
