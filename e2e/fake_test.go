package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
)

// fakeServerEnv makes the test binary run fakeServer instead of the tests.
// Its value is a mode:
//
//	"late"        answer initialize, ping and echo; hold sleep calls, and
//	              when one is cancelled write its response anyway (late)
//	"silent-init" never answer initialize
//
// E2E_FAKE_VERSION, when set, is the protocolVersion the fake answers with
// (by default it echoes the client's).
const fakeServerEnv = "MCPGEN_E2E_FAKE_SERVER"

// fakeServer is a scripted MCP server that is not built on the runtime: a
// plain line loop over stdin/stdout, so the client under test meets a peer
// that is not its twin. It logs every line it reads ("recv") to stderr, so
// tests see exactly what the client wrote.
func fakeServer() int {
	mode := os.Getenv(fakeServerEnv)
	version := os.Getenv("E2E_FAKE_VERSION")
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		out.Flush()
	}
	held := map[string]bool{} // raw ids of sleep calls not answered yet
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<24)
	for in.Scan() {
		line := in.Text()
		log.Info("recv", "line", line)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Name            string          `json:"name"`
				Arguments       json.RawMessage `json:"arguments"`
				RequestID       json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			log.Warn("bad line", "error", err)
			continue
		}
		switch m.Method {
		case "initialize":
			if mode == "silent-init" {
				log.Info("not answering initialize", "id", string(m.ID))
				continue
			}
			v := version
			if v == "" {
				v = m.Params.ProtocolVersion
			}
			reply(m.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"e2e-fake","version":"0"}}`, v))
		case "ping":
			reply(m.ID, `{}`)
		case "tools/list":
			tools := `{"name":"sleep","inputSchema":{"type":"object"}}`
			if mode != "no-echo" {
				tools += `,{"name":"echo","inputSchema":{"type":"object"}}`
			}
			reply(m.ID, `{"tools":[`+tools+`]}`)
		case "tools/call":
			switch m.Params.Name {
			case "sleep":
				held[string(m.ID)] = true
				log.Info("holding", "id", string(m.ID))
			case "echo":
				var a struct{ Text string }
				_ = json.Unmarshal(m.Params.Arguments, &a)
				b, _ := json.Marshal(a.Text)
				reply(m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":%s}]}`, b))
			default:
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool"}}`+"\n", m.ID)
				out.Flush()
			}
		case "notifications/cancelled":
			id := string(m.Params.RequestID)
			if held[id] {
				// The spec only says a receiver SHOULD NOT answer a
				// cancelled request; a client must cope when it does.
				delete(held, id)
				reply(json.RawMessage(id), `{"content":[{"type":"text","text":"LATE"}]}`)
				log.Info("late response sent", "id", id)
			}
		default:
			if len(m.ID) > 0 { // a request we do not serve: JSON-RPC says answer it
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", m.ID)
				out.Flush()
			}
		}
	}
	log.Info("fake server exiting")
	return 0
}
