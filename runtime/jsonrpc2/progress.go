package jsonrpc2

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// ProgressParams is the params of notifications/progress, as the runtime
// reads them to reset timeouts and feed WithProgress callbacks.
type ProgressParams struct {
	ProgressToken ProgressToken   `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ProgressToken returns the progress token the peer put in the request's
// params._meta, which a handler needs to send notifications/progress.
func (r *Request) ProgressToken() (ProgressToken, bool) {
	tok, ok, err := progressTokenOf(r.Params)
	return tok, ok && err == nil
}

// progressTokenOf finds params._meta.progressToken.
func progressTokenOf(params []byte) (ProgressToken, bool, error) {
	if len(params) == 0 || params[0] != '{' {
		return ProgressToken{}, false, nil
	}
	meta := jsonscan.Member(params, "_meta")
	if meta == nil || meta[0] != '{' {
		return ProgressToken{}, false, nil
	}
	raw := jsonscan.Member(meta, "progressToken")
	if raw == nil {
		return ProgressToken{}, false, nil
	}
	tok, err := ParseRequestID(raw)
	if err != nil {
		return ProgressToken{}, true, fmt.Errorf("jsonrpc2: params._meta.progressToken: %w", err)
	}
	return tok, true, nil
}

// injectProgressToken returns params with _meta.progressToken set to tok,
// or the token already there. Params must be absent or an object: MCP
// request params always are, and there is nowhere to put a token otherwise.
func injectProgressToken(params json.RawMessage, tok ProgressToken) (json.RawMessage, ProgressToken, error) {
	if len(params) == 0 {
		out := append([]byte(`{"_meta":{"progressToken":`), tok.appendJSON(nil)...)
		return append(out, "}}"...), tok, nil
	}
	if params[0] != '{' {
		return nil, tok, errors.New("jsonrpc2: cannot add a progress token to params that are not a JSON object")
	}
	if existing, ok, err := progressTokenOf(params); err != nil {
		return nil, tok, err
	} else if ok {
		return params, existing, nil
	}
	out, err := jsonscan.EditObject(params, "_meta", func(meta map[string]json.RawMessage) bool {
		meta["progressToken"] = tok.appendJSON(nil)
		return true
	})
	if err != nil {
		return nil, tok, fmt.Errorf("jsonrpc2: params._meta is not an object: %w", err)
	}
	return out, tok, nil
}
