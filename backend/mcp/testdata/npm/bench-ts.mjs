// The official TypeScript SDK client making the same `echo` calls as BenchmarkEcho, for
// bench/mcp.sh. Usage: node bench-ts.mjs stdio|streamable-http|sse [URL] [N]
// Prints one JSON line: {"transport", "n", "p50us", "p99us", "callsPerSec"}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { fileURLToPath } from "node:url";
import path from "node:path";

const [mode, url, nArg] = process.argv.slice(2);
const n = Number(nArg || 1000);
const here = path.dirname(fileURLToPath(import.meta.url));
const everything = path.join(here, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: process.execPath, args: [everything, "stdio"], stderr: "ignore" });
} else if (mode === "streamable-http") {
  transport = new StreamableHTTPClientTransport(new URL(url));
} else if (mode === "sse") {
  transport = new SSEClientTransport(new URL(url));
} else {
  console.error("usage: node bench-ts.mjs stdio|streamable-http|sse [URL] [N]");
  process.exit(2);
}
const client = new Client({ name: "bench-ts", version: "1" }, { capabilities: {} });
await client.connect(transport);
const call = async () => {
  const res = await client.callTool({ name: "echo", arguments: { message: "ping" } });
  if (res.content?.[0]?.text !== "Echo: ping") throw new Error("bad result " + JSON.stringify(res));
};
for (let i = 0; i < 200; i++) await call();
const lat = [];
const start = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  const t = process.hrtime.bigint();
  await call();
  lat.push(Number(process.hrtime.bigint() - t) / 1000);
}
const total = Number(process.hrtime.bigint() - start) / 1e9;
lat.sort((a, b) => a - b);
const pct = (p) => Math.round(lat[Math.min(lat.length - 1, Math.floor(lat.length * p))]);
console.log(JSON.stringify({ transport: mode, n, p50us: pct(0.5), p99us: pct(0.99), callsPerSec: Math.round(n / total) }));
await client.close();
process.exit(0);
