/**
 * A loopback stand-in for Slack's response_url endpoint (never deployed): it
 * takes the worker's POSTs, checks each message against Slack's Block Kit
 * limits (a message Slack would refuse gets Slack's 400 `invalid_blocks`),
 * keeps them for `npm start` to print and for tests to wait on, and lists
 * them at GET /messages.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { slackLimitViolations } from "../shared/chatops/limits.ts";

export interface ReceivedMessage {
  path: string;
  at: number;
  body: Record<string, unknown>;
  violations: string[];
}

export interface ResponseUrlReceiver {
  /** http://127.0.0.1:PORT */
  url: string;
  /** host:port, for SLACK_RESPONSE_URL_ALLOW_HOSTS. */
  host: string;
  /** A fresh response_url (one path per command, like Slack's). */
  responseUrl(): string;
  messages: ReceivedMessage[];
  /** Resolves with the first message posted to `path` (bounded by timeoutMs). */
  waitFor(path: string, timeoutMs?: number): Promise<ReceivedMessage>;
  close(): Promise<void>;
}

export async function startResponseUrlReceiver(
  options: { port?: number; onMessage?: (message: ReceivedMessage) => void } = {},
): Promise<ResponseUrlReceiver> {
  const messages: ReceivedMessage[] = [];
  const waiters = new Set<() => void>();
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (req.method === "GET" && path === "/messages") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(messages, null, 2));
        return;
      }
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "text/plain" }).end("invalid_payload");
        return;
      }
      const message = { path, at: Date.now(), body, violations: slackLimitViolations(body) };
      messages.push(message);
      if (messages.length > 1000) messages.shift();
      options.onMessage?.(message);
      for (const wake of waiters) wake();
      if (message.violations.length > 0) res.writeHead(400, { "content-type": "text/plain" }).end("invalid_blocks");
      else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    host: `127.0.0.1:${port}`,
    responseUrl: () => `${url}/commands/T0LOCAL/${Date.now()}${++counter}/local`,
    messages,
    waitFor(path, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find((m) => m.path === path);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no message at ${path} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A message as `npm start` prints it: its blocks' texts, indented, and whether Slack would take it. */
export function describeReceived(message: ReceivedMessage): string {
  const body = message.body as {
    response_type?: string;
    replace_original?: boolean;
    blocks?: Record<string, unknown>[];
    text?: string;
  };
  const blocks = body.blocks ?? [];
  const verdict =
    message.violations.length === 0
      ? "within Slack's limits"
      : `REFUSED as Slack would: ${message.violations.join("; ")}`;
  const lines = [
    `response_url receiver got a${body.response_type === "in_channel" ? "n in_channel" : "n ephemeral"} message${body.replace_original ? " (replacing the original)" : ""} at ${message.path}: ${blocks.length} blocks, ${verdict}`,
  ];
  const unescapeSlack = (t: string) => t.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  for (const block of blocks) {
    const textOf = (t: unknown): string => {
      const value = (t as { text?: unknown })?.text;
      if (typeof value === "string") return unescapeSlack(value);
      return value && typeof value === "object" ? textOf(value) : "";
    };
    let rendered: string;
    if (block.type === "actions")
      rendered = `[buttons: ${((block.elements as unknown[]) ?? []).map(textOf).join(", ")}]`;
    else if (block.type === "header") rendered = `# ${textOf(block.text)}`;
    else if (block.type === "context") rendered = ((block.elements as unknown[]) ?? []).map(textOf).join("  ·  ");
    else if (block.fields)
      rendered = (block.fields as unknown[]).map((f) => textOf(f).replace("\n", " ")).join("  |  ");
    else rendered = textOf(block.text);
    for (const line of rendered.split("\n")) lines.push(`    ${line}`);
  }
  return lines.join("\n");
}
