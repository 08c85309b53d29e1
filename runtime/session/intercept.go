package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// intercept is the session's outermost interceptor: it runs the handlers
// of wrappedMethods with the session's view of their request (the era and
// version, the legacy mapping, MRTR and the error policy) and records
// initialize; other requests pass through untouched.
func (st *connState) intercept(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	if st.srv.removed[req.Method] {
		// A method the modern revision removed (initialize, ping,
		// logging/setLevel, resources/subscribe, …) does not exist for a
		// modern request, whatever answers it for legacy clients.
		if v, ok := requestVersion(req, jsonscan.Member(req.Params, "_meta")); ok {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found: " + req.Method + " is not part of protocol version " + v}
		}
	}
	if req.Method == MethodInitialize {
		return st.initializing(ctx, req, next)
	}
	if !st.srv.wrapped[req.Method] {
		return next(ctx, req)
	}
	srv, method, h := st.srv, req.Method, next
	// _meta is located once; what the session reads of it comes from here.
	meta := jsonscan.Member(req.Params, "_meta")
	v, hasVersion := requestVersion(req, meta)
	rs := &requestState{st: st, req: req}
	if hasVersion && srv.base.Modern {
		if !srv.supportsModern(v) {
			return nil, srv.unsupported(v)
		}
		rs.modern, rs.version = true, v
		rs.level, _ = metaMemberString(meta, MetaLogLevel)
		rs.clientCaps = jsonscan.Member(meta, MetaClientCapabilities)
		if caps := jsonscan.Trim(rs.clientCaps); len(caps) == 0 || caps[0] != '{' {
			// basic/index.mdx: every modern request states its client's
			// capabilities; without them none may be relied on.
			return nil, jsonrpc2.NewInvalidParamsError(fmt.Sprintf("%s: _meta has no %q object", method, MetaClientCapabilities))
		}
		carried, verified, err := srv.carriedResponses(jsonscan.Member(req.Params, "requestState"))
		if err != nil {
			return nil, err
		}
		rs.responses, rs.stateVerified = carried, verified
		// Only a retry carries inputResponses: the map is made when one does.
		if ir := jsonscan.Member(req.Params, "inputResponses"); ir != nil {
			answered, _ := jsonscan.Members(ir)
			if rs.responses == nil && len(answered) > 0 {
				rs.responses = make(map[string]json.RawMessage, len(answered))
			}
			for k, v := range answered {
				rs.responses[k] = v
			}
		}
	} else {
		lc, ok := st.awaitInitialize(ctx)
		if !ok && srv.base.Modern && method != MethodPing {
			return nil, jsonrpc2.NewInvalidParamsError(fmt.Sprintf("%s: _meta has no %q and no initialize came first", method, MetaProtocolVersion))
		}
		rs.version, rs.level, rs.clientCaps = lc.Version, lc.LogLevel, lc.ClientCapabilities
		if ok && srv.base.Modern {
			p, err := MapLegacyParams(req.Params, lc)
			if err != nil {
				return nil, jsonrpc2.NewInvalidParamsError(method + ": " + err.Error())
			}
			// Mapped in place: the session's interceptor is the outermost,
			// so everything after it (the user's interceptors, the
			// handler) sees the mapped request, and the Conn reads no
			// params once it has dispatched a request. A copy of the
			// request in rs made every request's state a size class
			// larger.
			req.Params, rs.mapped = p, true
		}
	}
	rs.ctx = stateCtx{Context: ctx, rs: rs}
	ctx = &rs.ctx
	res, err := h(ctx, req)
	if err != nil {
		return srv.answerError(ctx, rs, method, err)
	}
	if rs.modern {
		if method == MethodSubscriptionsListen {
			if res, err = withSubscriptionID(res, req.ID); err != nil {
				return srv.answerError(ctx, rs, method, err)
			}
		}
		if e := encoded(res, rs, method, srv.base.CacheableResults[method], false); e != nil {
			return e, nil
		}
		if res, err = withModernDefaults(res, srv.base.CacheableResults[method]); err != nil {
			return srv.answerError(ctx, rs, method, err)
		}
		return res, nil
	}
	if rs.mapped && res != nil {
		if e := encoded(res, rs, method, srv.base.CacheableResults[method], true); e != nil {
			return e, nil
		}
		var raw json.RawMessage
		b, merr := marshalResult(res)
		if merr == nil {
			raw, merr = MapModernResult(b, srv.base.CacheableResults[method])
		}
		if merr != nil {
			return srv.answerError(ctx, rs, method, merr)
		}
		return raw, nil
	}
	return res, nil
}

// answerError applies the error policy: a *jsonrpc2.Error goes to the peer
// as is; input required becomes an InputRequiredResult; anything else is
// logged with its detail and answered with a generic -32603.
func (s *Server) answerError(ctx context.Context, rs *requestState, method string, err error) (any, error) {
	if errors.Is(err, ErrInputRequired) && rs.modern {
		return rs.inputRequired(), nil
	}
	var rpc *jsonrpc2.Error
	if errors.As(err, &rpc) {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, err // cancelled: the runtime sends nothing
	}
	rs.st.log.LogAttrs(ctx, slog.LevelError, "request handler failed", slog.String("method", method),
		slog.String("id", rs.req.ID.String()), slog.String("error", err.Error()))
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error"}
}
