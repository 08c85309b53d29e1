package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// HandlerPanic is what a handler's panic becomes on its way to the Conn,
// which answers the request with -32603 and logs the panic (rate-limited,
// with the goroutine's stack). The Conn knows the method and id only; the
// session adds what MCP knows, so the record names the tool that panicked
// (issue 36: "method=tools/call" alone does not say which of fifty tools
// it was) and where, as attributes of their own rather than buried in the
// stack text.
type HandlerPanic struct {
	// Method is the request's method.
	Method string
	// Tool is the tools/call request's tool name, or "".
	Tool string
	// Value is what the handler panicked with.
	Value any
	// At is the function and file:line that panicked, the first frame
	// below the runtime's own.
	At string
	// Frames are the frames from the panic up to the session, innermost
	// first, each "function (file:line)".
	Frames []string
}

// Error reads as one sentence: which tool (or method) panicked with what,
// and where.
func (p *HandlerPanic) Error() string {
	who := p.Method
	if p.Tool != "" {
		who = fmt.Sprintf("tool %q", p.Tool)
	}
	return fmt.Sprintf("%s panicked: %v (at %s)", who, p.Value, p.At)
}

// LogValue makes the panic a group of attributes in the Conn's log
// record: panic.tool, panic.value, panic.at, and panic.frames.N.
func (p *HandlerPanic) LogValue() slog.Value {
	attrs := []slog.Attr{}
	if p.Tool != "" {
		attrs = append(attrs, slog.String("tool", p.Tool))
	}
	attrs = append(attrs, slog.String("value", fmt.Sprint(p.Value)), slog.String("at", p.At))
	frames := make([]slog.Attr, len(p.Frames))
	for i, f := range p.Frames {
		frames[i] = slog.String(fmt.Sprint(i), f)
	}
	return slog.GroupValue(append(attrs, slog.Attr{Key: "frames", Value: slog.GroupValue(frames...)})...)
}

// recoverHandler is the innermost interceptor: a panic of the
// implementation's handler is re-raised as a *HandlerPanic naming the tool,
// for the Conn to recover, answer and log. The deferred function runs on
// the panicking goroutine's stack, so the frames are still there to read
// (and the Conn's stack still shows them).
func recoverHandler(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if _, ok := r.(*HandlerPanic); ok {
			panic(r)
		}
		p := &HandlerPanic{Method: req.Method, Value: r}
		if req.Method == "tools/call" {
			var params struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(req.Params, &params) == nil {
				p.Tool = params.Name
			}
		}
		p.At, p.Frames = panicFrames()
		panic(p)
	}()
	return next(ctx, req)
}

// panicFrames reads the frames between the runtime's panic machinery and
// the session's interceptor: the handler's code.
func panicFrames() (at string, frames []string) {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	it := runtime.CallersFrames(pcs[:n])
	seenPanic := false
	for {
		f, more := it.Next()
		switch {
		case !seenPanic:
			seenPanic = f.Function == "runtime.gopanic"
		case strings.HasPrefix(f.Function, "runtime."):
			// runtime.panicmem, sigpanic, …: the fault, not the code.
		case strings.HasPrefix(f.Function, "github.com/mcpgen/mcpgen/runtime/session."):
			return at, frames
		default:
			s := fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line)
			if at == "" {
				at = s
			}
			frames = append(frames, s)
		}
		if !more || len(frames) == 16 {
			return at, frames
		}
	}
}
