package session

import (
	"fmt"
	"io"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// PrintProgress is a call option that asks the server for progress and
// prints every notifications/progress of the call to w, one line each:
// "progress 3/10 sleeping" (no "/total" when the server gave none, no
// message when it sent none). Pass it to a caller's WithCallOptions, e.g.
// sess.WithCallOptions(session.PrintProgress(os.Stderr)).CallTool(ctx, params);
// the generated WithProgress gives the notification's typed params to a
// function of yours instead.
func PrintProgress(w io.Writer) jsonrpc2.CallOption {
	return jsonrpc2.WithProgress(func(p jsonrpc2.ProgressParams) {
		line := "progress " + strconv.FormatFloat(p.Progress, 'f', -1, 64)
		if p.Total != nil {
			line += "/" + strconv.FormatFloat(*p.Total, 'f', -1, 64)
		}
		if p.Message != "" {
			line += " " + p.Message
		}
		fmt.Fprintln(w, line)
	})
}
