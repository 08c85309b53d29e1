package canceltest

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// This file is the runtime half of the differential test: what a Conn holding
// the revision's generated Policy does with a notifications/cancelled (apply
// it to the in-flight request it names, or ignore it, and why) against what
// jsonschema/v5, compiled from the same revision's official schema, says of
// its params. The Conn runs the generated decoder the Policy carries, so this
// checks the wire path itself, not the decoder on its own.

// RuntimeSeeds are params objects the runtime differential always covers:
// valid ones, requestId missing, null, of the wrong type, extra and
// duplicated members, params that are not objects, huge ids, and "7" versus 7
// (the request cancelled must be the one of that kind).
func RuntimeSeeds() []string {
	long := strings.Repeat("x", 10000)
	return []string{
		`{"requestId":7}`, `{"requestId":"7"}`, `{"requestId":7,"reason":"user pressed stop"}`,
		`{"requestId":"7","reason":"string seven"}`, `{"requestId":-7}`, `{"requestId":0}`, `{"requestId":-0}`,
		`{}`, `{"reason":"no id"}`, `{"requestId":null}`, `{"requestId":true}`, `{"requestId":1.5}`,
		`{"requestId":[7]}`, `{"requestId":{"id":7}}`, `{"requestId":7,"reason":5}`, `{"requestId":7,"reason":null}`,
		`{"requestId":7.0}`, `{"requestId":1e2}`, `{"requestId":-0.0}`, `{"requestId":0.7e1}`,
		`{"requestId":123456789012345678901234567890}`, `{"requestId":-9223372036854775809}`, `{"requestId":1e400}`, `{"requestId":1e5000}`,
		`{"requestId":0e100000000}`, `{"requestId":901e0456890}`,
		`{"requestId":"` + long + `"}`, `{"requestId":"\ud800"}`, `{"requestId":"a\u0000b"}`, `{"requestId":"\u0037"}`,
		`{"requestId":7,"extra":1}`, `{"requestId":7,"_meta":{}}`, `{"requestId":7,"_meta":5}`, `{"requestId":7,"_meta":{"progressToken":1}}`,
		`{"requestId":7,"requestId":"7"}`, `{"requestId":"7","requestId":7}`, `{"requestId":1.5,"requestId":7}`, `{"requestId":7,"requestId":1.5}`,
		`{"RequestId":7}`, `null`, `[]`, `[{"requestId":7}]`, `"7"`, `7`, `true`, ` {"requestId" : 7 } `,
	}
}

// RuntimeDifferential runs the runtime check on the seeds and on a sample of
// the params corpus, and requires the outcomes to cover applying and each
// kind of ignoring the revision can produce.
func (s Subject[N, P]) RuntimeDifferential(t *testing.T) {
	ref := NewReference(t, s.Revision, Params)
	seen := map[string]int{}
	inputs := append([]string(nil), RuntimeSeeds()...)
	for _, in := range Seeds(t, Params) {
		inputs = append(inputs, string(in))
	}
	for _, in := range inputs {
		if o := s.CheckRuntime(t, ref, []byte(in)); o != "" {
			seen[o]++
		}
	}
	t.Logf("%s: %d inputs, outcomes %v", s.Revision, len(inputs), seen)
	for _, want := range []string{"applied", "ignored: " + jsonrpc2.IgnoreMalformed.String(), "ignored: " + jsonrpc2.IgnoreUnknownID.String()} {
		if seen[want] == 0 {
			t.Errorf("no input was %s", want)
		}
	}
	// Where the schema makes requestId optional (2025-11-25), a valid
	// cancellation without one is "nothing to cancel"; elsewhere the schema
	// rejects it.
	if _, err := s.Policy(jsonrpc2.SideServer).Cancelled.Decode([]byte(`{}`)); (err == nil) != (seen["ignored: "+jsonrpc2.IgnoreNoRequestID.String()] > 0) {
		t.Errorf("requestId optional: %v, yet %d inputs ignored for no requestId", err == nil, seen["ignored: "+jsonrpc2.IgnoreNoRequestID.String()])
	}
}

// FuzzRuntime is the fuzz target of the runtime check (seeds: RuntimeSeeds
// and a sample of the params corpus).
func (s Subject[N, P]) FuzzRuntime(f *testing.F) {
	for _, in := range RuntimeSeeds() {
		f.Add([]byte(in))
	}
	for _, in := range Seeds(f, Params) {
		f.Add(in)
	}
	ref := NewReference(f, s.Revision, Params)
	f.Fuzz(func(t *testing.T, params []byte) { s.CheckRuntime(t, ref, params) })
}

// CheckRuntime sends params in a notifications/cancelled to a Conn holding
// the revision's Policy (side server) while requests are in flight under the
// id the params name and its twin of the other kind ("7" for 7, 7 for "7"),
// and checks the outcome against jsonschema/v5's verdict on params:
//
//   - schema accepts, requestId present: the request with exactly that id is
//     cancelled (EventApplied), or, when no such request can be in flight,
//     the notification is ignored as unknown;
//   - schema accepts, requestId absent: ignored as IgnoreNoRequestID;
//   - schema rejects: ignored as IgnoreMalformed, with a Detail naming a JSON
//     pointer at which jsonschema/v5 also finds a violation (or, for params
//     that are not an object, array or null, the message layer's refusal,
//     which JSON-RPC itself makes);
//
// and that the runtime logged the outcome with the same reason and detail.
// It returns the outcome ("applied", "ignored: <why>"), or "" when the input
// cannot be compared: not one JSON value (no message can carry it), too deep
// or long to embed, or jsonschema/v5 has no verdict.
func (s Subject[N, P]) CheckRuntime(t testing.TB, ref *Reference, params []byte) string {
	t.Helper()
	if len(params) > 1<<16 || !json.Valid(params) || depth(params) > 256 {
		return ""
	}
	valid, known := ref.Verdict(params)
	if !known {
		return ""
	}
	id, present, inFlight := namedID(params)
	var ids []jsonrpc2.RequestID
	if inFlight {
		ids = append(ids, id)
		if twin, ok := twinOf(id); ok {
			ids = append(ids, twin)
		}
	}
	ev, logs := s.runConn(t, ids, params)
	switch {
	case !valid:
		if ev.Kind != jsonrpc2.EventIgnored || ev.Why != jsonrpc2.IgnoreMalformed {
			t.Errorf("%s: the schema rejects it, the runtime: %v %v %q", clip(params), ev.Kind, ev.Why, ev.Detail)
			break
		}
		checkPointer(t, ref, params, ev.Detail)
	case !present:
		if ev.Kind != jsonrpc2.EventIgnored || ev.Why != jsonrpc2.IgnoreNoRequestID {
			t.Errorf("%s: the schema accepts it without requestId, the runtime: %v %v %q", clip(params), ev.Kind, ev.Why, ev.Detail)
		}
	case inFlight:
		if ev.Kind != jsonrpc2.EventApplied || ev.ID != id || ev.Method != "tools/call" {
			t.Errorf("%s: the schema accepts it, so request %s should be cancelled (in flight: %v); the runtime: %v id %v %v %q", clip(params), id, ids, ev.Kind, ev.ID, ev.Why, ev.Detail)
		}
	default:
		if ev.Kind != jsonrpc2.EventIgnored || ev.Why != jsonrpc2.IgnoreUnknownID {
			t.Errorf("%s: the schema accepts it, no such request can be in flight; the runtime: %v %v %q", clip(params), ev.Kind, ev.Why, ev.Detail)
		}
	}
	checkLogged(t, params, ev, logs)
	if ev.Kind == jsonrpc2.EventApplied {
		return "applied"
	}
	return "ignored: " + ev.Why.String()
}

// runConn runs one Conn: the requests ids in flight, then the notification;
// it returns the event that settled the notification and the log lines.
func (s Subject[N, P]) runConn(t testing.TB, ids []jsonrpc2.RequestID, params []byte) (jsonrpc2.Event, []logLine) {
	t.Helper()
	a, b := jsonrpc2.NewPipe()
	events := make(chan jsonrpc2.Event, 64)
	rec := &recorder{}
	// The dispatch queue is sized for ids of a million digits (1e999999
	// is one), whose log line and event would otherwise be dropped, as the
	// Conn drops what does not fit rather than block.
	c := jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(s.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(slog.New(rec)),
		jsonrpc2.WithDispatchQueue(64, 64<<20),
		jsonrpc2.WithObserver(func(e jsonrpc2.Event) {
			if e.Kind == jsonrpc2.EventApplied || e.Kind == jsonrpc2.EventIgnored {
				select {
				case events <- e:
				default:
				}
			}
		}))
	c.Handle("tools/call", func(ctx context.Context, _ *jsonrpc2.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	drained := make(chan struct{})
	go func() { // nobody reads the Conn's output otherwise
		defer close(drained)
		for {
			if _, err := b.Read(ctx); err != nil {
				return
			}
		}
	}()
	defer func() {
		if err := c.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		_ = b.Close()
		<-drained
	}()
	for _, id := range ids {
		if err := b.Write(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(id.RawJSON())+`,"method":"tools/call","params":{}}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":`+string(params)+`}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		return ev, rec.lines()
	case <-ctx.Done():
		t.Fatalf("%s: no event settled the notification", clip(params))
	}
	return jsonrpc2.Event{}, nil
}

// namedID reads the requestId of params as JSON Schema reads it, independently
// of the generated decoder: the last member of that exact name (as
// encoding/json and jsonschema/v5 keep), a string, or a number whose value is
// an integer (7.0 is 7). inFlight is false when no request can carry that id
// (not a string or integer, or an integer too long to write out here).
func namedID(params []byte) (id jsonrpc2.RequestID, present, inFlight bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m == nil {
		return id, false, false
	}
	raw, present := m["requestId"]
	if !present {
		return id, false, false
	}
	switch c := raw[0]; {
	case c == '"':
		id, err := jsonrpc2.ParseRequestID(raw)
		return id, true, err == nil
	case c == '-' || (c >= '0' && c <= '9'):
		if id, err := jsonrpc2.IntegerID(string(raw)); err == nil {
			return id, true, true
		}
		if len(raw) > 40 {
			return id, true, false // an exponent could make it huge
		}
		r, ok := new(big.Rat).SetString(string(raw))
		if !ok || !r.IsInt() || len(r.Num().String()) > 4096 {
			return id, true, false
		}
		// The value, written out: 7.0 is 7 and -0.0 is 0 (only a literal
		// -0 keeps its sign, as the runtime keeps ids as written).
		id, err := jsonrpc2.IntegerID(r.Num().String())
		return id, true, err == nil
	}
	return id, true, false
}

// twinOf is the id of the other kind with the same text: "7" for 7, 7 for "7".
func twinOf(id jsonrpc2.RequestID) (jsonrpc2.RequestID, bool) {
	if text, ok := id.IntegerText(); ok {
		return jsonrpc2.StringID(text), true
	}
	if s, ok := id.StringValue(); ok {
		if twin, err := jsonrpc2.IntegerID(s); err == nil {
			return twin, true
		}
	}
	return jsonrpc2.RequestID{}, false
}

// checkPointer checks that a rejection's detail names a JSON pointer (into
// the notification: /params/...) at which jsonschema/v5 reports a violation
// too. Params that are not an object, array or null never reach the decoder:
// JSON-RPC lets params be only a structured value, and the message layer
// refuses the message.
func checkPointer(t testing.TB, ref *Reference, params []byte, detail string) {
	t.Helper()
	first := strings.TrimSpace(string(params))[0]
	if first != '{' && first != '[' && first != 'n' {
		if !strings.Contains(detail, "params must be an object or array") {
			t.Errorf("%s: refused with %q, want the message layer's refusal", clip(params), detail)
		}
		return
	}
	var ptr string
	switch {
	case strings.HasPrefix(detail, "(root): "):
		ptr = "" // the notification: params absent (null is absent)
	case strings.HasPrefix(detail, "/params"):
		ptr, _, _ = strings.Cut(strings.TrimPrefix(detail, "/params"), ": ")
	default:
		t.Errorf("%s: detail %q names no JSON pointer", clip(params), detail)
		return
	}
	locs := ref.violations(params)
	for _, l := range locs {
		if l == ptr {
			return
		}
	}
	t.Errorf("%s: the runtime blames %q (%s), jsonschema/v5 finds violations at %q", clip(params), ptr, detail, locs)
}

// violations lists the instance locations of jsonschema/v5's errors for the
// (invalid) params.
func (r *Reference) violations(params []byte) []string {
	var doc any
	dec := json.NewDecoder(strings.NewReader(string(params)))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return nil
	}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		out = append(out, e.InstanceLocation)
		for _, c := range e.Causes {
			walk(c)
		}
	}
	if ve, ok := r.schema.Validate(doc).(*jsonschema.ValidationError); ok {
		walk(ve)
	}
	return out
}

// checkLogged checks the runtime's log line for the outcome: the reason and
// the detail of an ignored cancellation, the id of an applied one.
func checkLogged(t testing.TB, params []byte, ev jsonrpc2.Event, logs []logLine) {
	t.Helper()
	for _, l := range logs {
		switch {
		case ev.Kind == jsonrpc2.EventIgnored && l.msg == "cancellation ignored":
			if l.attrs["why"] != ev.Why.String() || l.attrs["detail"] != ev.Detail {
				t.Errorf("%s: logged why=%q detail=%q, observed %q %q", clip(params), l.attrs["why"], l.attrs["detail"], ev.Why, ev.Detail)
			}
			return
		case ev.Kind == jsonrpc2.EventApplied && l.msg == "request cancelled by peer":
			if l.attrs["id"] != ev.ID.String() {
				t.Errorf("%s: logged id %q, applied to %s", clip(params), l.attrs["id"], ev.ID)
			}
			return
		}
	}
	t.Errorf("%s: %v %v not logged: %v", clip(params), ev.Kind, ev.Why, logs)
}

// depth is the nesting depth of the valid JSON data.
func depth(data []byte) int {
	d, maxD, inStr := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			d++
			maxD = max(maxD, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return maxD
}

type logLine struct {
	msg   string
	attrs map[string]string
}

// recorder is a slog.Handler keeping every line at Info and above.
type recorder struct {
	mu  sync.Mutex
	out []logLine
}

func (r *recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	l := logLine{msg: rec.Message, attrs: map[string]string{}}
	rec.Attrs(func(a slog.Attr) bool { l.attrs[a.Key] = a.Value.String(); return true })
	r.mu.Lock()
	r.out = append(r.out, l)
	r.mu.Unlock()
	return nil
}

func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

func (r *recorder) lines() []logLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]logLine(nil), r.out...)
}
