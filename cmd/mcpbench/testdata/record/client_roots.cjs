// The TypeScript SDK's client (pinned in scripts/install-peers.sh), with
// the roots capability, running one session against the URL given: a
// short pause for its GET stream to open, then server-everything's
// read-only get-roots-list tool, which makes the server ask the client
// for its roots (roots/list); close.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ListRootsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

async function main() {
  const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
  const client = new Client({ name: "record-roots-client", version: "1.0.0" }, { capabilities: { roots: {} } });
  let asked = 0;
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked++;
    return { roots: [{ uri: "file:///nowhere", name: "nowhere" }] };
  });
  await client.connect(transport);
  await new Promise((r) => setTimeout(r, 100));
  await client.callTool({ name: "get-roots-list", arguments: {} });
  if (asked === 0) throw new Error("the server never asked for roots");
  await transport.terminateSession();
  await client.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
