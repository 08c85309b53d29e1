package interophttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcp20250326 "github.com/mcpgen/mcpgen/generated/mcp20250326"
	mcp20250618 "github.com/mcpgen/mcpgen/generated/mcp20250618"
	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp20260728 "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Era detection as a user gets it: streamhttp.Dial and the generated
// Connect with default options, bindings of either era, against every
// server this module can run. Each pair must agree on a revision both
// speak, and a cancelled call must cancel the server's handler.

// bindings is one revision's generated client as the test drives it.
type bindings struct {
	name    string
	connect func(ctx context.Context, t jsonrpc2.Transport) (clientUnderTest, error)
}

// clientUnderTest is what the test needs of a generated ClientSession.
type clientUnderTest interface {
	ProtocolVersion() string
	Modern() bool
	call(ctx context.Context, tool string) error
	Close(ctx context.Context) error
}

type client1125 struct{ *mcp20251125.ClientSession }

func (c client1125) call(ctx context.Context, tool string) error {
	_, err := c.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: tool})
	return err
}

type client0618 struct{ *mcp20250618.ClientSession }

func (c client0618) call(ctx context.Context, tool string) error {
	_, err := c.CallTool(ctx, &mcp20250618.CallToolRequestParams{Name: tool})
	return err
}

type client0326 struct{ *mcp20250326.ClientSession }

func (c client0326) call(ctx context.Context, tool string) error {
	_, err := c.CallTool(ctx, &mcp20250326.CallToolRequestParams{Name: tool})
	return err
}

type client0728 struct{ *mcp20260728.ClientSession }

func (c client0728) call(ctx context.Context, tool string) error {
	_, err := c.CallTool(ctx, &mcp20260728.CallToolRequestParams{Name: tool})
	return err
}

// allBindings are the bindings of every revision with Streamable HTTP
// (2024-11-05 has HTTP+SSE only, which streamhttp does not speak).
var allBindings = []bindings{
	{"bindings-2025-03-26", func(ctx context.Context, t jsonrpc2.Transport) (clientUnderTest, error) {
		cs, err := mcp20250326.Connect(ctx, t, session.Implementation{Name: "mcpgen-interop", Version: "0"}, nil)
		if err != nil {
			return nil, err
		}
		return client0326{cs}, nil
	}},
	{"bindings-2025-06-18", func(ctx context.Context, t jsonrpc2.Transport) (clientUnderTest, error) {
		cs, err := mcp20250618.Connect(ctx, t, session.Implementation{Name: "mcpgen-interop", Version: "0"}, nil)
		if err != nil {
			return nil, err
		}
		return client0618{cs}, nil
	}},
	{"bindings-2025-11-25", func(ctx context.Context, t jsonrpc2.Transport) (clientUnderTest, error) {
		cs, err := mcp20251125.Connect(ctx, t, session.Implementation{Name: "mcpgen-interop", Version: "0"}, nil)
		if err != nil {
			return nil, err
		}
		return client1125{cs}, nil
	}},
	{"bindings-2026-07-28", func(ctx context.Context, t jsonrpc2.Transport) (clientUnderTest, error) {
		cs, err := mcp20260728.Connect(ctx, t, session.Implementation{Name: "mcpgen-interop", Version: "0"}, nil)
		if err != nil {
			return nil, err
		}
		return client0728{cs}, nil
	}},
}

// peerServer is a running server whose sleep tool reports its start and
// the end of its context.
type peerServer struct {
	url     string
	started <-chan struct{}
	ended   <-chan string // how the handler's context ended, for the log
	// versions the server speaks, newest first: the pair must settle on the
	// newest one the bindings speak too.
	versions []string
	// legacyUnreachable is set for a server that runs each legacy request
	// on its own session and ties no handler to the request's stream in the
	// legacy era: no client can cancel its handler there.
	legacyUnreachable string
}

// sleeper is the mcpgen server's tool implementation, in both eras'
// bindings: sleep blocks until its context ends; echo answers.
type sleeper struct {
	started chan struct{}
	ended   chan string
}

func newSleeper() *sleeper {
	return &sleeper{started: make(chan struct{}, 8), ended: make(chan string, 8)}
}

func (s *sleeper) sleep(ctx context.Context) error {
	s.started <- struct{}{}
	<-ctx.Done()
	cause := context.Cause(ctx)
	var ce *jsonrpc2.CancelError
	if !errors.As(cause, &ce) {
		s.ended <- "without a CancelError: " + cause.Error()
	} else {
		s.ended <- ce.Source.String() + ": " + cause.Error()
	}
	return ctx.Err()
}

type sleeper1125 struct{ *sleeper }

func (s sleeper1125) CallTool(ctx context.Context, p *mcp20251125.CallToolRequestParams) (*mcp20251125.CallToolResult, error) {
	if p.Name == "sleep" {
		return nil, s.sleep(ctx)
	}
	return mcp20251125.TextResult("echo"), nil
}

type sleeper0728 struct{ *sleeper }

func (s sleeper0728) CallTool(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
	if p.Name == "sleep" {
		return nil, s.sleep(ctx)
	}
	return mcp20260728.TextResult("echo"), nil
}

func serveHTTP(t *testing.T, h http.Handler, closeFn func(context.Context) error) string {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		if closeFn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = closeFn(ctx)
		}
		srv.Close()
	})
	return srv.URL
}

// mcpgenDualEra is mcpgen's HTTP server with the newest bindings and the
// legacy revisions they fall back to, as examples/http-server builds it.
func mcpgenDualEra(t *testing.T) peerServer {
	s := newSleeper()
	srv := mcp20260728.NewServer(session.Implementation{Name: "mcpgen", Version: "0"}, sleeper0728{s},
		session.WithLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()), session.WithLogger(quiet()))
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet()})
	return peerServer{url: serveHTTP(t, h, h.Close), started: s.started, ended: s.ended, versions: []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}}
}

// mcpgenLegacy is mcpgen's HTTP server with 2025-11-25 bindings and
// nothing else: every option a default.
func mcpgenLegacy(t *testing.T) peerServer {
	s := newSleeper()
	srv := mcp20251125.NewServer(session.Implementation{Name: "mcpgen", Version: "0"}, sleeper1125{s})
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet()})
	return peerServer{url: serveHTTP(t, h, h.Close), started: s.started, ended: s.ended, versions: []string{"2025-11-25"}}
}

// mcpgenModern is mcpgen's HTTP server with 2026-07-28 bindings only.
func mcpgenModern(t *testing.T) peerServer {
	s := newSleeper()
	srv := mcp20260728.NewServer(session.Implementation{Name: "mcpgen", Version: "0"}, sleeper0728{s})
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet()})
	return peerServer{url: serveHTTP(t, h, h.Close), started: s.started, ended: s.ended, versions: []string{"2026-07-28"}}
}

// goSDK is go-sdk v1.8's StreamableHTTPHandler with a sleep tool.
func goSDK(stateless bool) func(t *testing.T) peerServer {
	return func(t *testing.T) peerServer {
		started, ended, done := make(chan struct{}, 8), make(chan string, 8), make(chan struct{})
		server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk", Version: "1.8"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				ended <- context.Cause(ctx).Error()
			case <-done:
				// go-sdk could not tell the handler (the test reports it).
			}
			return nil, nil, ctx.Err()
		})
		// PropagateRequestCancellation: go-sdk cancels a handler on a closed
		// modern stream only when asked (go-sdk issue #1093).
		opts := &mcp.StreamableHTTPOptions{Stateless: stateless, PropagateRequestCancellation: true, Logger: quiet()}
		url := serveHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts), nil)
		t.Cleanup(func() { close(done) }) // before the server's Close, which waits for the handler
		ps := peerServer{url: url, started: started, ended: ended, versions: goSDKVersions(stateless)}
		if stateless {
			ps.legacyUnreachable = "go-sdk v1.8's stateless handler serves each legacy request on a session of its own, so " +
				"notifications/cancelled reaches no handler, and PropagateRequestCancellation applies to 2026-07-28 requests only"
		}
		return ps
	}
}

func TestEraDetection(t *testing.T) {
	servers := []struct {
		name  string
		start func(t *testing.T) peerServer
	}{
		{"mcpgen-dual-era", mcpgenDualEra},
		{"mcpgen-2025-11-25", mcpgenLegacy},
		{"mcpgen-2026-07-28", mcpgenModern},
		{"go-sdk-sessionful", goSDK(false)},
		{"go-sdk-stateless", goSDK(true)},
		{"ts-sdk-1.32.2", tsServer("MCPGEN_TS_SDK", "server.mjs", []string{"2025-11-25", "2025-06-18", "2025-03-26"})},
		{"ts-sdk-2.4.0", tsServer("MCPGEN_TS_SDK2", "server2.mjs", []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"})},
	}
	for _, sv := range servers {
		for _, b := range allBindings {
			t.Run(sv.name+"/"+b.name, func(t *testing.T) {
				ps := sv.start(t)
				eraPair(t, ps, b)
			})
		}
	}
}

func eraPair(t *testing.T, ps peerServer, b bindings) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	want := ""
	for _, v := range ps.versions {
		if bindingsSpeak(b.name, v) {
			want = v
			break
		}
	}
	tr, err := streamhttp.Dial(ctx, ps.url, streamhttp.ClientOptions{Revisions: httpRevisions, Logger: quiet()})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	cs, err := b.connect(ctx, tr)
	if want == "" {
		if err == nil {
			cs.Close(ctx)
			t.Fatalf("connected at %s although the server speaks only %v", cs.ProtocolVersion(), ps.versions)
		}
		t.Logf("no common version, as expected: %v", err)
		tr.Close()
		return
	}
	if err != nil {
		tr.Close()
		t.Fatalf("Connect: %v", err)
	}
	defer func() {
		c, cc := context.WithTimeout(context.Background(), 5*time.Second)
		defer cc()
		cs.Close(c)
	}()
	if got := cs.ProtocolVersion(); got != want {
		t.Fatalf("negotiated %s (modern %v), want %s", got, cs.Modern(), want)
	}
	callCtx, stop := context.WithCancelCause(ctx)
	res := make(chan error, 1)
	go func() { res <- cs.call(callCtx, "sleep") }()
	wait(t, ps.started, "handler start")
	stop(errors.New("interop client gave up"))
	if err := wait(t, res, "call return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	if !strings.HasPrefix(want, "2026") && ps.legacyUnreachable != "" {
		t.Logf("%s: the call was cancelled; the server's handler cannot be: %s", want, ps.legacyUnreachable)
		return
	}
	how := wait(t, ps.ended, "handler cancellation")
	t.Logf("%s: handler cancelled (%s)", want, how)
	if strings.HasPrefix(want, "2025") && strings.Contains(how, "jsonrpc2") && !strings.Contains(how, "interop client gave up") {
		t.Errorf("legacy cancellation lost its reason: %s", how)
	}
}

// httpRevisions are the generated Revision() of every revision with
// Streamable HTTP: what the clients and the hand-built servers of these
// tests speak (streamhttp has no revision data of its own).
var httpRevisions = []session.Revision{mcp20260728.Revision(), mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()}

// bindingsSpeak reports whether the default client of the bindings named
// speaks version: each speaks its own revision; the modern bindings fall
// back to the legacy revisions Streamable HTTP has.
func bindingsSpeak(name, v string) bool {
	switch name {
	case "bindings-2025-03-26":
		return v == "2025-03-26"
	case "bindings-2025-06-18":
		return v == "2025-06-18"
	case "bindings-2025-11-25":
		return v == "2025-11-25"
	case "bindings-2026-07-28":
		return v == "2026-07-28" || v == "2025-11-25" || v == "2025-06-18" || v == "2025-03-26"
	}
	return false
}
