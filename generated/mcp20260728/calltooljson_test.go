package mcp20260728

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// paramsRecorder is a server Conn answering tools/call with an empty result
// and handing the test each request's params as they arrived.
func paramsRecorder(t *testing.T) (cc *jsonrpc2.Conn, got <-chan json.RawMessage) {
	t.Helper()
	ct, st := jsonrpc2.NewPipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cc = jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet))
	sc := jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet))
	ch := make(chan json.RawMessage, 1)
	sc.Handle(MethodCallTool, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		ch <- append(json.RawMessage(nil), req.Params...)
		return json.RawMessage(`{"content":[],"resultType":"complete"}`), nil
	})
	cc.Start()
	sc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cc.Close(ctx)
		_ = sc.Close(ctx)
	})
	return cc, ch
}

// TestCallToolJSON: CallToolJSON sends what CallTool sends for the same
// name and arguments (the arguments compacted, as the first member; nil as
// {}), also when the Conn must edit the params (a progress token); it
// refuses arguments that are not one JSON object and sends nothing then.
func TestCallToolJSON(t *testing.T) {
	cc, got := paramsRecorder(t)
	srv := NewServerCaller(cc)
	ctx := context.Background()
	rest, err := CallToolRequestParams{Name: "echo"}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args json.RawMessage
		want string
	}{
		{json.RawMessage(" {\n \"text\" : \"hi\", \"n\": [1, 2] } "), `{"arguments":{"text":"hi","n":[1,2]},`},
		{nil, `{"arguments":{},`},
		{json.RawMessage(`{}`), `{"arguments":{},`},
	} {
		if _, err := srv.CallToolJSON(ctx, "echo", c.args); err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		want := c.want + string(rest[1:])
		if p := string(<-got); p != want {
			t.Errorf("%s: sent %s, want %s", c.args, p, want)
		}
		// CallTool with the same arguments as a map sends the same members.
		var m map[string]json.RawMessage
		if c.args != nil {
			_ = json.Unmarshal(c.args, &m)
		} else {
			m = map[string]json.RawMessage{}
		}
		if _, err := srv.CallTool(ctx, &CallToolRequestParams{Name: "echo", Arguments: m}); err != nil {
			t.Fatal(err)
		}
		var viaJSON, viaMap any
		_ = json.Unmarshal([]byte(want), &viaJSON)
		_ = json.Unmarshal(<-got, &viaMap)
		if a, b := mustMarshal(t, viaJSON), mustMarshal(t, viaMap); a != b {
			t.Errorf("%s: CallToolJSON sent %s, CallTool %s", c.args, a, b)
		}
	}

	// With a progress handler the Conn adds the token to _meta: the params
	// go through MarshalJSON.
	progress := srv.WithCallOptions(jsonrpc2.WithProgress(func(jsonrpc2.ProgressParams) {}))
	if _, err := progress.CallToolJSON(ctx, "echo", json.RawMessage(`{"text":"p"}`)); err != nil {
		t.Fatal(err)
	}
	var p struct {
		Meta      map[string]json.RawMessage `json:"_meta"`
		Arguments map[string]string          `json:"arguments"`
		Name      string                     `json:"name"`
	}
	if err := json.Unmarshal(<-got, &p); err != nil || p.Arguments["text"] != "p" || p.Name != "echo" || p.Meta["progressToken"] == nil {
		t.Errorf("with progress: %+v, %v", p, err)
	}

	for _, bad := range []string{`[1]`, `"x"`, `null`, ``, ` `, `{"a":`, `{"a":1}x`} {
		_, err := srv.CallToolJSON(ctx, "echo", json.RawMessage(bad))
		if err == nil {
			t.Errorf("%q: no error", bad)
			<-got
			continue
		}
		if !strings.Contains(err.Error(), "arguments") {
			t.Errorf("%q: the error does not name the arguments: %v", bad, err)
		}
	}
	select {
	case p := <-got:
		t.Errorf("refused arguments were sent: %s", p)
	default:
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
