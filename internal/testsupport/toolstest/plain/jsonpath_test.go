package plain

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// recorder implements Tools, keeping the JSON of every argument value its
// methods are called with.
type recorder struct {
	mu   sync.Mutex
	args []string
}

func (r *recorder) keep(v any) {
	b, _ := json.Marshal(v)
	r.mu.Lock()
	r.args = append(r.args, string(b))
	r.mu.Unlock()
}

func (r *recorder) PlainClosed(_ context.Context, a *PlainClosedArgs) (*PlainClosedResult, error) {
	r.keep(a)
	return &PlainClosedResult{S: "ok"}, nil
}

func (r *recorder) PlainOpen(_ context.Context, a *PlainOpenArgs) (*PlainOpenResult, error) {
	r.keep(a)
	return &PlainOpenResult{}, nil
}

func (r *recorder) PlainScalars(_ context.Context, a *PlainScalarsArgs) (*mcp.CallToolResult, error) {
	r.keep(a)
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "ok"}}}, nil
}

// viaMap embeds the Handler, so RegisterServer answers tools/call with its
// (promoted) CallTool and the arguments decoded into a map.
type viaMap struct{ *Handler }

// serve registers impl on a server Conn and returns the client Conn.
func serve(t *testing.T, impl any) *jsonrpc2.Conn {
	t.Helper()
	ct, st := jsonrpc2.NewPipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cc := jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet))
	sc := jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet))
	mcp.RegisterServer(sc, impl)
	cc.Start()
	sc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cc.Close(ctx)
		_ = sc.Close(ctx)
	})
	return cc
}

// TestCallToolJSONFor: RegisterServer hands the arguments to a Handler
// registered as itself as the request's JSON, and to a type embedding it
// through CallTool; over every mutation of the plain tools' arguments
// (and arguments absent, null, not an object, next to other bad members)
// both answer byte for byte alike and call the methods with the same
// values.
func TestCallToolJSONFor(t *testing.T) {
	h := NewHandler(nil)
	if h.CallToolJSONFor(h) == nil || h.CallToolJSONFor(viaMap{h}) != nil || h.CallToolJSONFor(&viaMap{h}) != nil {
		t.Fatal("CallToolJSONFor: want a function for the Handler itself only")
	}

	direct, embedded := &recorder{}, &recorder{}
	cDirect, cEmbedded := serve(t, NewHandler(direct)), serve(t, viaMap{NewHandler(embedded)})
	meta, err := json.Marshal(mcp.RequestMetaObject{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	var params []string
	add := func(tool string, inputs []string) {
		for _, in := range inputs {
			params = append(params, `{"_meta":`+string(meta)+`,"name":"`+tool+`","arguments":`+in+`}`)
		}
	}
	closed := map[string]string{"s": `"abc"`, "n": `1.5`, "i": `7`, "b": `true`, "opt": `"x"`, "optN": `-2`, "optI": `0`, "optB": `false`, "o": `{"k":"v","j":3}`}
	add("plain_closed", mutations(closed, []string{"s", "n", "i", "b", "opt", "optN", "optI", "optB", "o"}))
	add("plain_open", mutations(map[string]string{"a": `"x"`}, []string{"a"}))
	add("plain_scalars", mutations(map[string]string{"b": `true`, "e": `"a"`, "i": `1`, "n": `1.5`, "s": `"x"`}, []string{"b", "e", "i", "n", "s"}))
	params = append(params,
		`{"_meta":`+string(meta)+`,"name":"plain_open"}`,
		`{"_meta":`+string(meta)+`,"name":"plain_closed"}`,
		`{"_meta":`+string(meta)+`,"name":"nope","arguments":{}}`,
		`{"_meta":`+string(meta)+`,"arguments":5}`,
		`{"arguments":{},"name":"plain_open"}`,
		`{"arguments":"x","name":7}`,
		`{"_meta":`+string(meta)+`,"name":"plain_open","arguments":{},"arguments":[1]}`,
		`{"_meta":`+string(meta)+`,"name":"plain_open","arguments":[1],"arguments":{"a":"y"}}`)

	ctx := context.Background()
	answered := 0
	for _, p := range params {
		if !json.Valid([]byte(p)) {
			continue // the client Conn refuses it before either server sees it
		}
		var a, b json.RawMessage
		errA := cDirect.Call(ctx, mcp.MethodCallTool, json.RawMessage(p), &a)
		errB := cEmbedded.Call(ctx, mcp.MethodCallTool, json.RawMessage(p), &b)
		var ea, eb *jsonrpc2.Error
		if errors.As(errA, &ea) && errors.As(errB, &eb) {
			if ea.Code != eb.Code || ea.Message != eb.Message {
				t.Errorf("%s: error %d %q as JSON, %d %q through CallTool", p, ea.Code, ea.Message, eb.Code, eb.Message)
			}
			continue
		}
		if errA != nil || errB != nil {
			t.Errorf("%s: %v as JSON, %v through CallTool", p, errA, errB)
			continue
		}
		answered++
		if string(a) != string(b) {
			t.Errorf("%s: answered %s as JSON, %s through CallTool", p, a, b)
		}
	}
	if answered < 50 || len(direct.args) < 20 {
		t.Fatalf("only %d answers, %d calls: the inputs no longer reach the tools", answered, len(direct.args))
	}
	if len(direct.args) != len(embedded.args) {
		t.Fatalf("%d calls as JSON, %d through CallTool", len(direct.args), len(embedded.args))
	}
	for i := range direct.args {
		if direct.args[i] != embedded.args[i] {
			t.Errorf("call %d: arguments %s as JSON, %s through CallTool", i, direct.args[i], embedded.args[i])
		}
	}
	t.Logf("%d params, %d answered, %d calls", len(params), answered, len(direct.args))
}
