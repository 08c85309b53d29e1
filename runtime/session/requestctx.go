package session

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// requestState is what a handler's ctx knows about its request's session.
type requestState struct {
	ctx        stateCtx // the handler's context (see stateCtx)
	st         *connState
	req        *jsonrpc2.Request
	modern     bool
	mapped     bool // a legacy request served by modern handlers
	version    string
	level      string // "" means no log messages
	clientCaps json.RawMessage
	responses  map[string]json.RawMessage // modern inputResponses
	// stateVerified: the request carried a requestState the session issued.
	stateVerified bool

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
// retry. Input keys are assigned in call order ("input-1", …), so a
// handler must ask for the same inputs in the same order each time;
// InputAs names the key instead.
func Input(ctx context.Context, method string, params any, result any) error {
	rs, ok := stateOf(ctx)
	if !ok {
		return ErrNoSession
	}
	rs.mu.Lock()
	rs.next++
	key := "input-" + strconv.Itoa(rs.next)
	rs.mu.Unlock()
	return InputAs(ctx, key, method, params, result)
}

// InputAs is Input with the key of the input request in the
// InputRequiredResult (and of its answer in inputResponses) named by the
// handler. A handler that needs several inputs at once asks for each
// before returning, and returns the errors joined (errors.Join): the
// client then gets every unanswered request in one InputRequiredResult.
// An answer that does not decode into result is Invalid params.
func InputAs(ctx context.Context, key, method string, params any, result any) error {
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
	if answer, ok := rs.responses[key]; ok {
		rs.mu.Unlock()
		if t := jsonscan.Trim(answer); len(t) == 0 || t[0] != '{' {
			return jsonrpc2.NewInvalidParamsError(fmt.Sprintf("inputResponses[%q]: must be an object (the %s result)", key, method))
		}
		if err := json.Unmarshal(answer, result); err != nil {
			return jsonrpc2.NewInvalidParamsError(fmt.Sprintf("inputResponses[%q]: %v", key, err))
		}
		return nil
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

// HasRequestState reports whether the request in ctx carried a
// requestState that the session issued and verified (a retry after an
// InputRequiredResult).
func HasRequestState(ctx context.Context) bool {
	rs, ok := stateOf(ctx)
	return ok && rs.stateVerified
}

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
// Its requestState always carries the answers the handler already had
// (possibly none): the handler runs again from the start on the retry, so
// they must come back with it, in requestState, which the client returns
// untouched (mrtr.mdx), not in server memory. The state is signed with the
// server's key, so a client cannot forge or alter answers in it.
func (rs *requestState) inputRequired() json.RawMessage {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	responses := rs.responses
	if responses == nil {
		responses = map[string]json.RawMessage{} // sealed as {}, never null
	}
	res := map[string]any{"resultType": "input_required", "inputRequests": rs.pending,
		"requestState": rs.st.srv.sealState(mustJSON(responses))}
	return mustJSON(res)
}

// requestStatePrefix marks a requestState this runtime issued.
const requestStatePrefix = "mcpgen-inputs:"

// sealState encodes payload as a requestState: the prefix, the payload
// and its HMAC-SHA256 under the server's key, base64url each.
func (s *Server) sealState(payload []byte) string {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(payload)
	return requestStatePrefix + base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errBadRequestState answers a requestState that fails verification
// (mrtr.mdx: servers MUST reject state that fails integrity checks).
var errBadRequestState = jsonrpc2.NewInvalidParamsError("requestState failed its integrity check")

// carriedResponses verifies and decodes the answers a requestState
// carries: absent or null carries none, as a nil map (most requests carry
// no state, and an empty map would cost allocations on every call; readers
// treat nil as empty); anything this server did not issue unchanged is an
// error.
func (s *Server) carriedResponses(state json.RawMessage) (map[string]json.RawMessage, bool, error) {
	if t := jsonscan.Trim(state); len(t) == 0 || string(t) == "null" {
		return nil, false, nil
	}
	var out map[string]json.RawMessage
	var str string
	if json.Unmarshal(state, &str) != nil || !strings.HasPrefix(str, requestStatePrefix) {
		return nil, false, errBadRequestState
	}
	body, sig, ok := strings.Cut(strings.TrimPrefix(str, requestStatePrefix), ".")
	if !ok {
		return nil, false, errBadRequestState
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, false, errBadRequestState
	}
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(payload)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return nil, false, errBadRequestState
	}
	if err := json.Unmarshal(payload, &out); err != nil {
		return nil, false, errBadRequestState
	}
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	return out, true, nil
}

// stateCtx is context.WithValue(parent, stateKey{}, rs) held inside the
// requestState, so it costs no allocation of its own on every request.
// Done, Err and the other values are the parent's, so contexts derived
// from it link to the parent's cancellation as they would to a valueCtx.
type stateCtx struct {
	context.Context
	rs *requestState
}

// Value returns the request's state for stateKey, else the parent's value.
func (c *stateCtx) Value(key any) any {
	if _, ok := key.(stateKey); ok {
		return c.rs
	}
	return c.Context.Value(key)
}
