// The TypeScript SDK's client over stdio: it launches the command given
// (a JSON array: record in front of server-filesystem) and runs one
// session in the directory given: list tools, a read, a pause, a listing,
// two reads at once, close.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const [command, ...args] = JSON.parse(process.argv[2]);
  const dir = process.argv[3];
  const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
  const client = new Client({ name: "record-test-client", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: "read_text_file", arguments: { path: dir + "/a.txt" } });
  await new Promise((r) => setTimeout(r, 300));
  await client.callTool({ name: "list_directory", arguments: { path: dir } });
  await Promise.all([
    client.callTool({ name: "read_text_file", arguments: { path: dir + "/a.txt" } }),
    client.callTool({ name: "get_file_info", arguments: { path: dir + "/a.txt" } }),
  ]);
  await client.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
