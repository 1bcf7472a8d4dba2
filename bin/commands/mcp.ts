/**
 * `mcp [--endpoint URL]`: the deployed API's MCP tools (POST /mcp) over stdio, for assistants that start a local
 * command (Claude Desktop, IDEs). A proxy, not a second server: each JSON-RPC message read from stdin is POSTed to
 * the API signed with SigV4 by the caller's own AWS credentials (as `remote` does), and the API's answer is
 * written to stdout. The tools, their scope (what the caller's IAM identity may call) and their answers are the
 * API's; nothing here reads a store or a cluster. stdout carries only MCP messages; problems go to stderr.
 */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isDomainError } from "../../shared/errors.ts";
import { defineCommand } from "../lib/define-command.ts";
import { remoteTarget } from "../lib/remote.ts";

const usage = `usage: npm run --silent cli -- mcp [--endpoint URL] [--timeout SECONDS]

Serves the deployed API's MCP tools (POST /mcp: helm status, list, history, manifest, the fleet's health, the
status history, reliability; read-only) over stdio, for an AI assistant that starts a command. Each message is
sent to the API signed with your AWS credentials (SigV4), as 'remote' does; for 'npm start' use
--endpoint http://127.0.0.1:3000. Set-up for assistants: docs/mcp.md.
      --endpoint URL         the API (else HELM_STATUS_ENDPOINT, else "endpoint:" in ~/.config/helm-status/config.yaml)
      --timeout SECONDS      how long to wait for the API per message (default 60)
`;

/** What the streamable HTTP transport needs to answer with JSON (it refuses an Accept without both). */
const ACCEPT = "application/json, text/event-stream";

export const run = defineCommand({
  help: usage,
  options: { endpoint: { type: "string" }, timeout: { type: "string" } },
  async run({ values }, io) {
    const target = remoteTarget(io.env, values, { needsCluster: false });
    const transport = new StdioServerTransport(io.stdin as Readable, io.stdout as Writable);
    let protocolVersion: string | undefined;
    const inFlight = new Set<Promise<void>>();

    const forward = async (message: JSONRPCMessage): Promise<void> => {
      const id = "id" in message && "method" in message ? message.id : undefined;
      try {
        const answer = await target.api.request({
          method: "POST",
          path: "/mcp",
          body: JSON.stringify(message),
          contentType: "application/json",
          headers: { accept: ACCEPT, ...(protocolVersion ? { "mcp-protocol-version": protocolVersion } : {}) },
          timeoutMs: target.timeoutMs,
        });
        if (!answer.body.trim()) return; // 202: a notification or response, accepted
        const reply = JSON.parse(answer.body) as JSONRPCMessage & { result?: { protocolVersion?: unknown } };
        // After initialize, every request names the negotiated version (MCP's streamable HTTP rule).
        if (typeof reply.result?.protocolVersion === "string") protocolVersion = reply.result.protocolVersion;
        await transport.send(reply);
      } catch (error) {
        const message_ = isDomainError(error) ? error.message : "the API's answer could not be read";
        io.stderr.write(`mcp: ${message_}\n`);
        if (id !== undefined) await transport.send({ jsonrpc: "2.0", id, error: { code: -32603, message: message_ } });
      }
    };

    transport.onmessage = (message) => {
      const pending = forward(message).finally(() => inFlight.delete(pending));
      inFlight.add(pending);
    };
    transport.onerror = (error) => io.stderr.write(`mcp: ${error.message}\n`);
    await transport.start();
    // The assistant ends the session by closing stdin: answer what is in flight (each bounded by --timeout), stop.
    await new Promise<void>((resolve) => {
      io.stdin.once("end", resolve);
      io.stdin.once("close", resolve);
    });
    await Promise.allSettled([...inFlight]);
    await transport.close();
    return 0;
  },
});
