package jsonrpc2

import (
	"context"
	"log/slog"
)

// warnDuplicate logs a request whose id is already in flight, which the
// runtime drops unanswered.
//
// Both revisions forbid the reuse: 2025-11-25 basic/index.mdx says "The
// request ID MUST NOT have been previously used by the requestor within the
// same session", 2026-07-28 that it "MUST NOT match the ID of any other
// request the sender has issued and not yet received a response for". Neither
// says how the receiver answers a violation, and any answer (an error
// included) carries the same id as the first request's response, so the
// peer could not tell which request it answers: dropping keeps the first
// request's outcome unambiguous. The line is a Warn, since it is a peer bug
// someone should see, and rate-limited like the ignored-cancellation line
// because a peer can repeat it at will; the next line written says how many
// were suppressed.
func (c *Conn) warnDuplicate(id RequestID, method string) {
	if !c.log.Enabled(context.Background(), slog.LevelWarn) {
		return
	}
	ok, suppressed := c.dupLimit.allow()
	if !ok {
		return
	}
	attrs := []slog.Attr{slog.String("id", id.String()), slog.String("method", method)}
	if suppressed > 0 {
		attrs = append(attrs, slog.Uint64("suppressed", suppressed))
	}
	c.log.LogAttrs(context.Background(), slog.LevelWarn, "dropping request whose id is already in flight", attrs...)
}
