// The TypeScript SDK's reference server shape (McpServer over stdio) with
// the two tools of examples/stdio-server, for the interop suite.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-reference", version: "1.0.0" });
server.tool("echo", { text: z.string() }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
server.tool("sleep", { ms: z.number().int() }, async ({ ms }, extra) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve({ content: [{ type: "text", text: `slept ${ms} ms` }] }), ms);
    extra.signal.addEventListener("abort", () => { clearTimeout(t); reject(new Error("cancelled")); });
  }),
);
await server.connect(new StdioServerTransport());
