package streamhttp

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// errBodyBudget ends a body read that would take the bytes of all bodies
// being read beyond Options.MaxBodyBudget.
var errBodyBudget = errors.New("streamhttp: request bodies being read exceed the server's budget")

// budgetReader counts the bytes a body of unknown length (chunked) holds
// against the Handler's global budget as they arrive.
type budgetReader struct {
	h     *Handler
	r     io.ReadCloser
	taken int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 && b.h.opts.MaxBodyBudget > 0 {
		if b.h.bodyBudget.Add(int64(n)) > b.h.opts.MaxBodyBudget {
			b.h.bodyBudget.Add(-int64(n))
			return 0, errBodyBudget
		}
		b.taken += int64(n)
	}
	return n, err
}

func (b *budgetReader) Close() error { return b.r.Close() }

// readBody reads a POST body under the hardening limits, or answers the
// request and reports false: a Content-Length over MaxBodyBytes gets 413
// before a byte is read; a body that grows over it 413; one that would
// take the bodies being read over MaxBodyBudget 503; one not read within
// BodyReadTimeout 408.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > h.opts.MaxBodyBytes {
		w.Header().Set("Connection", "close") // the body is not read
		writeError(w, http.StatusRequestEntityTooLarge, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest,
			"message exceeds the body size limit ("+strconv.FormatInt(r.ContentLength, 10)+" > "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes)", nil)
		return nil, false
	}
	if h.opts.BodyReadTimeout > 0 {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(h.opts.BodyReadTimeout)) == nil {
			// Cleared once read: the connection's background read must not
			// time out under a long response stream.
			defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
		}
	}
	var data []byte
	var err error
	if cl := r.ContentLength; cl >= 0 {
		// The length is known: its bytes are taken from the budget up
		// front and read into a buffer of exactly that size (no growth,
		// no copies), so the budget is what the bodies hold.
		if h.opts.MaxBodyBudget > 0 {
			if h.bodyBudget.Add(cl) > h.opts.MaxBodyBudget {
				h.bodyBudget.Add(-cl)
				err = errBodyBudget
			} else {
				defer h.bodyBudget.Add(-cl)
			}
		}
		if err == nil {
			data = make([]byte, cl)
			_, err = io.ReadFull(r.Body, data)
		}
	} else {
		br := &budgetReader{h: h, r: r.Body}
		defer func() { h.bodyBudget.Add(-br.taken) }()
		data, err = io.ReadAll(http.MaxBytesReader(w, br, h.opts.MaxBodyBytes))
	}
	if err == nil {
		return data, true
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "message exceeds the body size limit", nil)
	case errors.Is(err, errBodyBudget):
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		h.log.Warn("request refused: request bodies being read exceed the budget", "budget", h.opts.MaxBodyBudget)
		writeError(w, http.StatusServiceUnavailable, jsonrpc2.RequestID{}, jsonrpc2.CodeInternalError, "server busy: too many request bodies being read", nil)
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "the request body was not sent within the body read timeout", nil)
	default:
		writeError(w, http.StatusBadRequest, jsonrpc2.RequestID{}, jsonrpc2.CodeParseError, "reading the body failed", nil)
	}
	return nil, false
}
