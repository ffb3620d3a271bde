// A real client nobody here wrote (the TypeScript SDK's, pinned in
// scripts/install-peers.sh) running one session against the URL given:
// list tools, a call, a pause, another call, two calls at once, close.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
  const client = new Client({ name: "record-test-client", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: "echo", arguments: { message: "first" } });
  await new Promise((r) => setTimeout(r, 300));
  await client.callTool({ name: "echo", arguments: { message: "second" } });
  await Promise.all([
    client.callTool({ name: "echo", arguments: { message: "left" } }),
    client.callTool({ name: "echo", arguments: { message: "right" } }),
  ]);
  await transport.terminateSession();
  await client.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
