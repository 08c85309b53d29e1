// A TypeScript-SDK 2.x MCP server (createMcpHandler: 2026-07-28 per-request
// serving, legacy traffic on its default stateless fallback) on node:http,
// for interop tests. Prints one JSON line per event on stdout.
import http from 'node:http';
import { Readable } from 'node:stream';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const handler = createMcpHandler(() => {
  const s = new McpServer({ name: 'ts-sdk', version: '2.4.0' });
  s.registerTool('sleep', { description: 'sleeps until cancelled' }, async (ctx) => {
    const signal = ctx.mcpReq.signal;
    say({ event: 'started' });
    await new Promise((resolve) => {
      const t = setTimeout(resolve, 30000);
      signal.addEventListener('abort', () => { clearTimeout(t); resolve(); });
    });
    if (signal.aborted) say({ event: 'cancelled', reason: String(signal.reason) });
    return { content: [{ type: 'text', text: 'late' }] };
  });
  return s;
});

// node:http to the handler's web-standard fetch face: the request's signal
// aborts when the client closes the connection, which is how the SDK sees a
// modern cancellation.
const srv = http.createServer(async (req, res) => {
  const ac = new AbortController();
  res.on('close', () => { if (!res.writableFinished) ac.abort(new Error('client closed the stream')); });
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const request = new Request('http://' + req.headers.host + req.url, {
    method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body, signal: ac.signal,
  });
  let response;
  try {
    response = await handler.fetch(request);
  } catch (e) {
    res.writeHead(500).end(String(e));
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) { res.end(); return; }
  Readable.fromWeb(response.body).on('error', () => res.destroy()).pipe(res);
});
srv.listen(0, '127.0.0.1', () => say({ event: 'listening', port: srv.address().port }));
