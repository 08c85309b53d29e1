package jsonrpc2

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// Issue 11, must-show 7: LogCancellations writes one JSON record per event
// with msg "cancellation" and the id exactly as sent (string or number).
func TestLogCancellationsJSON(t *testing.T) {
	var buf bytes.Buffer
	obs := LogCancellations(slog.New(slog.NewJSONHandler(&buf, nil)))
	obs(Event{Kind: EventApplied, Direction: Incoming, ID: StringID("7"), Method: "tools/call", Reason: "user", Source: SourcePeer})
	obs(Event{Kind: EventApplied, Direction: Incoming, ID: Int64ID(7), Method: "tools/call", Source: SourcePeer})
	raw, _ := ParseRequestID([]byte(`"\ud800"`))
	obs(Event{Kind: EventApplied, Direction: Incoming, ID: raw, Source: SourcePeer})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d records:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{`"id":"7"`, `"id":7`, `"id":"\ud800"`} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatalf("record %d is not JSON: %v: %s", i, err, lines[i])
		}
		if m["msg"] != "cancellation" || m["event"] != "applied" || m["source"] != SourcePeer.String() || !strings.Contains(lines[i], want) {
			t.Errorf("record %d: %s, want %s", i, lines[i], want)
		}
		for _, k := range []string{"reason", "method"} {
			if _, ok := m[k]; !ok {
				t.Errorf("record %d lacks %s", i, k)
			}
		}
	}
}

// A flood of ignored cancellations is rate-limited, and the next record says
// how many were suppressed.
func TestLogCancellationsRateLimitsIgnored(t *testing.T) {
	var buf bytes.Buffer
	obs := LogCancellations(slog.New(slog.NewJSONHandler(&buf, nil)))
	for i := 0; i < 10000; i++ {
		obs(Event{Kind: EventIgnored, Direction: Incoming, ID: Int64ID(int64(i)), Source: SourcePeer, Why: IgnoreUnknownID})
	}
	n := strings.Count(buf.String(), "\n")
	if n < 20 || n > 200 {
		t.Fatalf("%d records for 10,000 ignored cancellations", n)
	}
	lim := newLogLimiter(1, 1e9) // refills at once: the next line reports the count
	lim.tokens = 0
	lim.allow()
	lim.last = lim.last.Add(-1e6)
	if ok, sup := lim.allow(); !ok || sup != 1 {
		t.Fatalf("allow = %v, %d", ok, sup)
	}
}
