// A TypeScript SDK server (McpServer over stdio) with tools of its own,
// written the way TypeScript servers are: zod schemas, including a union,
// a nullable member, an enum and an output schema, for mcpgen's callers
// suite (scripts/suites/55-callers.sh).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-own", version: "1.0.0" });
server.registerTool("concat", {
  description: "Joins parts with a separator.",
  inputSchema: { parts: z.array(z.string()).min(1), sep: z.string().optional() },
}, async ({ parts, sep }) => ({ content: [{ type: "text", text: parts.join(sep ?? "") }] }));
server.registerTool("stats", {
  description: "Count, sum and mean of numbers.",
  inputSchema: { values: z.array(z.number()), round: z.enum(["none", "int"]).optional() },
  outputSchema: { count: z.number().int(), sum: z.number(), mean: z.number().nullable() },
}, async ({ values, round }) => {
  const sum = values.reduce((a, b) => a + b, 0);
  let mean = values.length ? sum / values.length : null;
  if (round === "int" && mean !== null) mean = Math.round(mean);
  const out = { count: values.length, sum, mean };
  return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
});
server.registerTool("describe", {
  description: "Describes a value given as a string or a number.",
  inputSchema: { value: z.union([z.string(), z.number()]), label: z.string().nullable().optional() },
}, async ({ value, label }) => ({
  content: [{ type: "text", text: `${label ?? "value"}: ${typeof value} ${value}` }],
}));
server.registerPrompt("greet", {
  description: "A greeting.",
  argsSchema: { name: z.string(), tone: z.string().optional() },
}, ({ name, tone }) => ({
  messages: [{ role: "user", content: { type: "text", text: `Greet ${name}${tone ? " in a " + tone + " tone" : ""}.` } }],
}));
await server.connect(new StdioServerTransport());
