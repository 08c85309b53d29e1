// A TypeScript-SDK MCP client on Streamable HTTP, for interop tests:
// calls sleep, aborts after 200 ms with a reason, then calls echo and
// terminates the session. Prints one JSON line per event on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const client = new Client({ name: 'ts-sdk-client', version: '1' });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
say({ event: 'connected', protocolVersion: transport.protocolVersion, session: transport.sessionId });
const ac = new AbortController();
setTimeout(() => ac.abort('ts-sdk client gave up after 200ms'), 200);
try {
  const r = await client.callTool({ name: 'sleep', arguments: { ms: 10000 } }, undefined, { signal: ac.signal });
  say({ event: 'result', result: r });
} catch (e) {
  say({ event: 'aborted', error: String(e) });
}
const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
say({ event: 'echo', result: echo });
await transport.terminateSession();
await client.close();
say({ event: 'closed' });
