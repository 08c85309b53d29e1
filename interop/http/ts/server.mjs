// A TypeScript-SDK MCP server on Streamable HTTP (legacy, stateful), for
// interop tests. Prints one JSON line per event on stdout.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const transports = {};

function newServer() {
  const s = new McpServer({ name: 'ts-sdk', version: '1' });
  s.registerTool('sleep', { description: 'sleeps until cancelled', inputSchema: {} }, async (_args, extra) => {
    say({ event: 'started' });
    await new Promise((resolve) => {
      const t = setTimeout(resolve, 30000);
      extra.signal.addEventListener('abort', () => { clearTimeout(t); resolve(); });
    });
    if (extra.signal.aborted) say({ event: 'cancelled', reason: String(extra.signal.reason) });
    return { content: [{ type: 'text', text: 'late' }] };
  });
  s.registerTool('echo', { description: 'echo' }, async () => ({ content: [{ type: 'text', text: 'echo' }] }));
  return s;
}

const srv = http.createServer(async (req, res) => {
  let body = '';
  for await (const c of req) body += c;
  const parsed = body ? JSON.parse(body) : undefined;
  const sid = req.headers['mcp-session-id'];
  let t = sid && transports[sid];
  if (!t && req.method === 'POST' && parsed?.method === 'initialize') {
    t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { transports[id] = t; },
    });
    await newServer().connect(t);
  }
  if (!t) { res.writeHead(404).end(); return; }
  await t.handleRequest(req, res, parsed);
});
srv.listen(0, '127.0.0.1', () => say({ event: 'listening', port: srv.address().port }));
