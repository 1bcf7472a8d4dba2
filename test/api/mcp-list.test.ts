/**
 * tools/list is converted once per process (functions/api/mcp/server.ts), not by the SDK's McpServer at every request:
 * the kept listing must be exactly what the SDK itself answers for the same registrations, and the same at every
 * request. Both servers reached with the SDK's Client over its in-memory transport.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createMcpServer, listOfTools, MCP_TOOLS, registerTools } from "../../functions/api/mcp/server.ts";
import type { ApiDeps } from "../../functions/api/types.ts";
import { lambdaContext, testApiDeps } from "./support.ts";

const deps: ApiDeps = testApiDeps();

async function listed(server: McpServer): Promise<object[]> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "mcp-list-test", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await server.close();
  }
}

test("the tools/list kept per process is the SDK's own listing, the same at every request", async () => {
  const bySdk = new McpServer({ name: "sdk", version: "0" });
  registerTools(bySdk, { deps, context: lambdaContext() });
  const expected = await listed(bySdk);
  assert.equal(expected.length, MCP_TOOLS.length);
  const first = await listed(createMcpServer(deps, lambdaContext()));
  const second = await listed(createMcpServer(deps, lambdaContext()));
  // As the wire carries them (an absent _meta is no key).
  const wire = (tools: object[]) => JSON.parse(JSON.stringify(tools)) as unknown;
  assert.deepEqual(wire(first), wire(expected));
  assert.deepEqual(wire(second), wire(expected));
  assert.equal(listOfTools(), listOfTools(), "converted once per process, then kept");
});
