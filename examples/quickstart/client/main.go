// Command client is the quickstart's MCP client: it runs the server command
// given as its arguments, calls add, then calls slow, printing its progress,
// and gives up on it after 1.5 s: the call's timeout is an MCP cancellation
// (so is cancelling its ctx).
//
//	go run ./examples/quickstart/client go run ./examples/quickstart/stdio-server
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"

	"github.com/mcpgen/mcpgen/examples/quickstart/tools"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

func main() {
	server := &session.CommandTransport{Command: exec.Command(os.Args[1], os.Args[2:]...)}
	sess, err := mcp.Connect(context.Background(), server, session.Implementation{Name: "quickstart-client", Version: "0.1.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	// Closes the server's stdin and waits for it to exit (SIGTERM, then SIGKILL, after 5 s each).
	defer sess.Close(context.Background())
	// Every call prints its progress and is cancelled after 1.5 s (notifications/cancelled).
	calc := tools.NewCaller(sess.WithCallOptions(session.PrintProgress(os.Stdout), jsonrpc2.WithTimeout(1500*time.Millisecond)))
	sum, err := calc.Add(context.Background(), &tools.AddArgs{A: 2, B: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("add: 2 + 3 =", sum.Sum)
	_, err = calc.Slow(context.Background(), &tools.SlowArgs{Seconds: 10})
	fmt.Println("slow:", err)
}
