package jsonrpc2

import (
	"context"
	"fmt"
	"time"
)

// wait blocks until cl is resolved, the caller's context ends, or one of the
// call's time limits fires. Each way out that abandons the call cancels it on
// the wire (see abandon).
//
// Two clocks: the timeout (restarted by progress under WithProgressReset) and
// the hard maximum, which nothing restarts.
func (c *Conn) wait(ctx context.Context, cl *call, cc *callConfig, result any) error {
	var tC, mC <-chan time.Time
	var timer *time.Timer
	if cc.timeout > 0 {
		timer = time.NewTimer(cc.timeout)
		defer timer.Stop()
		tC = timer.C
	}
	if cc.maxTimeout > 0 {
		mt := time.NewTimer(cc.maxTimeout)
		defer mt.Stop()
		mC = mt.C
	}
	for {
		select {
		case <-cl.done:
			c.drainProgress(cl, cc) // deliver what arrived before the response
			return cl.finish(result)
		case <-ctx.Done():
			c.abandon(cl, reasonOf(ctx), SourceCaller)
			return ctx.Err()
		case <-tC:
			src, reason := SourceTimeout, fmt.Sprintf("no response within the %v timeout", cc.timeout)
			if cc.resetProgress {
				src, reason = SourceProgressTimeout, fmt.Sprintf("no response or progress within the %v timeout", cc.timeout)
			}
			return c.timedOut(cl, src, reason, result)
		case <-mC:
			return c.timedOut(cl, SourceMaxTimeout, fmt.Sprintf("no response within the %v maximum timeout", cc.maxTimeout), result)
		case <-cl.progressSignal():
			if c.drainProgress(cl, cc) && cc.resetProgress && timer != nil {
				timer.Reset(cc.timeout) // Go 1.23+ timers: Reset discards a pending fire
			}
		}
	}
}

// timedOut abandons cl because a limit fired. If the response won the race,
// it is returned instead: the limit no longer matters.
func (c *Conn) timedOut(cl *call, src CancelSource, reason string, result any) error {
	ce := &CancelError{ID: cl.id, Method: cl.method, Reason: reason, Source: src}
	if !c.abandon(cl, reason, src) {
		<-cl.done // resolved by the response or the shutdown, which won the race
		return cl.finish(result)
	}
	return ce
}

// drainProgress delivers queued progress to the callback and reports whether
// there was any.
func (c *Conn) drainProgress(cl *call, cc *callConfig) bool {
	if cl.prog == nil {
		return false
	}
	cl.prog.mu.Lock()
	q := cl.prog.q
	cl.prog.q = nil
	cl.prog.mu.Unlock()
	if cc.onProgress != nil {
		for _, p := range q {
			cc.onProgress(p)
		}
	}
	return len(q) > 0
}
