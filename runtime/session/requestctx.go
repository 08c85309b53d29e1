package session

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// requestState is what a handler's ctx knows about its request's session.
type requestState struct {
	st         *connState
	req        *jsonrpc2.Request
	modern     bool
	mapped     bool // a legacy request served by modern handlers
	version    string
	level      string // "" means no log messages
	clientCaps json.RawMessage
	responses  map[string]json.RawMessage // modern inputResponses

	mu      sync.Mutex
	next    int
	pending map[string]json.RawMessage
}

type stateKey struct{}

func stateOf(ctx context.Context) (*requestState, bool) {
	rs, ok := ctx.Value(stateKey{}).(*requestState)
	return rs, ok
}

// ErrNoSession is returned by the handler helpers when ctx is not the
// context of a request served by a session Server.
var ErrNoSession = errors.New("session: ctx is not a session request's context")

// ErrInputRequired is returned by Input for a modern request whose
// client has not yet supplied the input: the handler returns it (wrapped
// or not) and the session answers with an InputRequiredResult; the client
// retries with the input and the handler runs again, this time getting
// the answer from Input.
var ErrInputRequired = errors.New("session: input required from the client")

// ProtocolVersion returns the version the request in ctx is served under
// (the negotiated one for a legacy client).
func ProtocolVersion(ctx context.Context) string {
	if rs, ok := stateOf(ctx); ok {
		return rs.version
	}
	return ""
}

// IsModern reports whether the request in ctx came from a modern client.
func IsModern(ctx context.Context) bool {
	rs, ok := stateOf(ctx)
	return ok && rs.modern
}

// ConnOf returns the Conn the request in ctx arrived on.
func ConnOf(ctx context.Context) (*jsonrpc2.Conn, bool) {
	rs, ok := stateOf(ctx)
	if !ok {
		return nil, false
	}
	return rs.st.conn, true
}

// Notify sends a notification to the client of the request in ctx.
func Notify(ctx context.Context, method string, params any) error {
	rs, ok := stateOf(ctx)
	if !ok {
		return ErrNoSession
	}
	return rs.st.conn.Notify(ctx, method, params)
}

// ProgressToken returns the progress token of the request in ctx, if the
// client asked for progress.
func ProgressToken(ctx context.Context) (jsonrpc2.ProgressToken, bool) {
	rs, ok := stateOf(ctx)
	if !ok {
		return jsonrpc2.ProgressToken{}, false
	}
	return rs.req.ProgressToken()
}

// Progress reports progress on the request in ctx (total 0 means
// unknown, message "" means none). Without a progress token from the
// client it does nothing, as the spec requires.
func Progress(ctx context.Context, progress, total float64, message string) error {
	tok, ok := ProgressToken(ctx)
	if !ok {
		return nil
	}
	p := map[string]any{"progressToken": tok, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	return Notify(ctx, "notifications/progress", p)
}

// levels are the syslog severities of LoggingLevel, lowest first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelRank(l string) int {
	for i, x := range levels {
		if x == l {
			return i
		}
	}
	return -1
}

// Log sends notifications/message at level to the client of the request
// in ctx if the client asked for that level or a lower one: with
// logging/setLevel (legacy) or the request's _meta logLevel (modern; a
// request without it gets no log messages). data is any JSON value;
// logger may be "".
func Log(ctx context.Context, level, logger string, data any) error {
	rs, ok := stateOf(ctx)
	if !ok {
		return ErrNoSession
	}
	if levelRank(level) < 0 {
		return fmt.Errorf("session: unknown log level %q", level)
	}
	if rs.level == "" || levelRank(level) < levelRank(rs.level) {
		return nil
	}
	p := map[string]any{"level": level, "data": data}
	if logger != "" {
		p["logger"] = logger
	}
	return rs.st.conn.Notify(ctx, "notifications/message", p)
}

// inputCapabilities is the client capability each input request needs.
var inputCapabilities = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

// Input asks the client of the request in ctx for input (method is
// "sampling/createMessage", "elicitation/create" or "roots/list") and
// decodes the answer into result.
//
// For a legacy client it is an ordinary server-to-client request, made
// with ctx, so cancelling the handler's request cancels it too. For a
// modern client (MRTR) it returns the answer from the retried request's
// inputResponses, or ErrInputRequired, which the handler returns so that
// the client is asked; the handler then runs again from the start on the
// retry. Input keys are assigned in call order, so a handler must ask for
// the same inputs in the same order each time.
func Input(ctx context.Context, method string, params any, result any) error {
	rs, ok := stateOf(ctx)
	if !ok {
		return ErrNoSession
	}
	if c, ok := inputCapabilities[method]; ok && jsonscan.Member(rs.clientCaps, c) == nil {
		msg := fmt.Sprintf("the client did not declare the %q capability that %s needs", c, method)
		if !rs.modern {
			// Legacy revisions have no MissingRequiredClientCapabilityError.
			return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: msg}
		}
		return MissingCapability(c, msg)
	}
	if !rs.modern {
		return rs.st.conn.Call(ctx, method, params, result)
	}
	rs.mu.Lock()
	rs.next++
	key := "input-" + strconv.Itoa(rs.next)
	if answer, ok := rs.responses[key]; ok {
		rs.mu.Unlock()
		return json.Unmarshal(answer, result)
	}
	if rs.pending == nil {
		rs.pending = map[string]json.RawMessage{}
	}
	req := map[string]any{"method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err == nil {
		rs.pending[key] = b
	}
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	return ErrInputRequired
}

// CodeMissingRequiredClientCapability is
// MissingRequiredClientCapabilityError's code (2026-07-28): the request
// needs a client capability the client did not declare.
const CodeMissingRequiredClientCapability = -32021

// MissingCapability returns the MissingRequiredClientCapabilityError for
// the client capability name (data.requiredCapabilities is a
// ClientCapabilities object, {"sampling": {}}). A handler returns it when
// serving the request needs a capability the client did not declare
// (ClientCapabilities says which it did); Input returns it itself. On
// Streamable HTTP its status is 400.
func MissingCapability(name, message string) *jsonrpc2.Error {
	if message == "" {
		message = fmt.Sprintf("Missing required client capability: %s", name)
	}
	return &jsonrpc2.Error{Code: CodeMissingRequiredClientCapability, Message: message,
		Data: mustJSON(map[string]any{"requiredCapabilities": map[string]any{name: map[string]any{}}})}
}

// ClientCapabilities returns the capabilities the client of the request in
// ctx declared (initialize's for a legacy client, the request's _meta for
// a modern one), as sent; nil outside a session request.
func ClientCapabilities(ctx context.Context) json.RawMessage {
	if rs, ok := stateOf(ctx); ok {
		return rs.clientCaps
	}
	return nil
}

// inputRequired is the InputRequiredResult for the inputs asked so far.
func (rs *requestState) inputRequired() json.RawMessage {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	res := map[string]any{"resultType": "input_required", "inputRequests": rs.pending}
	if len(rs.responses) > 0 {
		// The handler runs again from the start on the retry, so the
		// answers it already had must come back with it: in requestState,
		// which the client returns untouched (mrtr.mdx), not in server memory.
		res["requestState"] = requestStatePrefix + base64.RawURLEncoding.EncodeToString(mustJSON(rs.responses))
	}
	return mustJSON(res)
}

// requestStatePrefix marks a requestState that carries earlier answers.
const requestStatePrefix = "mcpgen-inputs:"

// carriedResponses decodes the answers a requestState carries; anything
// else (absent, or another server's state) carries none.
func carriedResponses(state json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	var s string
	if json.Unmarshal(state, &s) != nil || !strings.HasPrefix(s, requestStatePrefix) {
		return out
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s, requestStatePrefix))
	if err != nil {
		return out
	}
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	return out
}
