package streamhttp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// sseCursor is what a client keeps of a response stream to resume it
// (2025-11-25 transports "Resumability and Redelivery", SEP-1699): the id of
// the last event and the server's retry delay.
type sseCursor struct {
	lastID string
	retry  time.Duration // zero: the server sent none
}

// readEventsResumable is readEvents that also records the id and retry
// fields of the events, priming events (id and retry, no data) included.
func readEventsResumable(r io.Reader, max int, cur *sseCursor, fn func(data []byte) error) error {
	br := bufio.NewReaderSize(r, 4096)
	var data []byte
	have := false
	// The id of an event counts once the event is complete (WHATWG SSE:
	// the last event ID is set when the event is dispatched): a stream cut
	// inside an event must resume before that event, not after it.
	var pendingID *string
	for {
		line, err := readLine(br, max)
		if err != nil {
			if err == io.EOF && have && len(data) > 0 {
				if pendingID != nil {
					cur.lastID = *pendingID
				}
				return fn(data)
			}
			return err
		}
		switch {
		case len(line) == 0:
			if pendingID != nil {
				cur.lastID = *pendingID
				pendingID = nil
			}
			if have && len(data) > 0 {
				if err := fn(data); err != nil {
					return err
				}
			}
			data, have = nil, false
		case line[0] == ':':
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if have {
					data = append(data, '\n')
				}
				if len(data)+len(value) > max {
					return &jsonrpc2.MessageTooLargeError{Size: len(data) + len(value), Limit: max}
				}
				data = append(data, value...)
				have = true
			case "id":
				// The SSE rule: an id with a NUL is ignored.
				if bytes.IndexByte(value, 0) < 0 {
					id := string(value)
					pendingID = &id
				}
			case "retry":
				if ms, err := strconv.Atoi(string(value)); err == nil && ms >= 0 {
					cur.retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
	}
}

// Bounds of resumption: how many reconnections in a row without a new event
// one request may make, the delay when the server gave no retry field, and
// the longest delay honoured.
const (
	maxResumptions   = 8
	defaultRetry     = time.Second
	maxResumptionGap = 30 * time.Second
)

// resume reconnects to a legacy response stream that ended before the
// request's answer: after the server's retry delay, a GET with
// Last-Event-ID, whose events feed deliver; again while the server keeps
// closing streams (a handler's CloseSSEStream, a replica serving another's
// stream from a shared event store: both end the response with the retry
// field while the request runs on). It gives up after maxResumptions
// reconnections in a row that brought no new event, or at the first that
// is refused. It reports whether the answer came.
func (c *ClientTransport) resume(ctx context.Context, cur *sseCursor, answered func() bool, deliver func([]byte) error) bool {
	for idle := 0; idle < maxResumptions && cur.lastID != "" && !answered(); {
		wait := cur.retry
		if wait == 0 {
			wait = defaultRetry
		}
		wait = min(wait, maxResumptionGap)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint, nil)
		if err != nil {
			return false
		}
		c.setCommon(req.Header)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", cur.lastID)
		resp, err := c.opts.HTTPClient.Do(req)
		if err != nil {
			c.log.Debug("resuming the response stream failed", "error", err)
			return false
		}
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			resp.Body.Close()
			c.log.Debug("the server did not resume the stream", "status", resp.StatusCode)
			return false
		}
		before := cur.lastID
		_ = readEventsResumable(resp.Body, c.opts.MaxMessageBytes, cur, deliver)
		resp.Body.Close()
		if cur.lastID == before {
			idle++ // nothing new: the request may still run; bounded
		} else {
			idle = 0
		}
	}
	return answered()
}
