/**
 * One request/response exchange of the simulated API server, over either protocol: reading the body, replies
 * serialized ahead of sending (a read is answered on arrival, sent when its latency is over), the injected
 * error and reset faults, and ending an exchange that failed half-way.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Http2ServerRequest, constants as http2 } from "node:http2";
import { setTimeout as sleep } from "node:timers/promises";
import type { Faults } from "./faults.ts";
import { statusBody } from "./negotiation.ts";

/**
 * Either protocol's exchange: ALPN picks HTTP/2 for clients that offer it, else HTTP/1.1. The handlers are
 * written against node:http's types; HTTP/2's compatibility objects have every member they use.
 */
export type Request = IncomingMessage;
export type Response = ServerResponse;

/** A reply ready to go out: status, headers and the serialized body (none for a 304). */
export interface PreparedReply {
  status: number;
  headers: Record<string, string>;
  payload?: Buffer;
}

export function prepared(status: number, body: unknown, headers: Record<string, string> = {}): PreparedReply {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  return { status, headers, payload };
}

/** What an error fault answers instead of the request: kube-apiserver's Status for 429, 503 or 500. */
export function injectedError(faults: Faults): PreparedReply {
  const status = faults.errorStatus;
  const headers: Record<string, string> = {};
  if (status !== 500 && faults.retryAfterSeconds !== undefined)
    headers["retry-after"] = String(faults.retryAfterSeconds);
  const [reason, message] =
    status === 429
      ? ["TooManyRequests", "Too many requests, please try again later."]
      : status === 503
        ? ["ServiceUnavailable", "the server is currently unable to handle the request"]
        : ["InternalError", "Internal error occurred: injected fault"];
  return prepared(status, statusBody(status, reason, message), headers);
}

/** Sends a prepared reply; `slowBodyMs` spreads its body over that long (the slow-body fault). */
export async function send(res: Response, reply: PreparedReply, slowBodyMs = 0): Promise<void> {
  const { status, headers, payload } = reply;
  if (!payload) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json", ...headers, "content-length": String(payload.length) });
  if (slowBodyMs <= 0 || payload.length < 2) {
    res.end(payload);
    return;
  }
  const chunks = Math.min(10, payload.length);
  const size = Math.ceil(payload.length / chunks);
  for (let offset = 0; offset < payload.length; offset += size) {
    if (res.destroyed) return;
    res.write(payload.subarray(offset, offset + size));
    await sleep(slowBodyMs / chunks);
  }
  res.end();
}

/**
 * A reset fault: HTTP/1.1 drops the connection (ECONNRESET for the request on it); HTTP/2 resets the
 * request's stream (RST_STREAM), which is what a dropped connection costs one request there.
 */
export function resetExchange(req: Request): void {
  const stream = (req as { stream?: Http2ServerRequest["stream"] }).stream;
  if (stream) stream.close(http2.NGHTTP2_INTERNAL_ERROR);
  else req.socket.destroy();
}

/** A reply that failed after its headers went out cannot be answered any more: end the exchange. */
export function destroyExchange(req: Request, res: Response): void {
  const stream = (req as { stream?: Http2ServerRequest["stream"] }).stream;
  if (stream) stream.close(http2.NGHTTP2_INTERNAL_ERROR);
  else res.destroy();
}

const NO_BODY = Buffer.alloc(0);

export async function readBody(req: Request): Promise<Buffer> {
  // An HTTP/2 request whose HEADERS frame ended the stream (every GET) has no body: no stream to iterate.
  if ((req as { stream?: Http2ServerRequest["stream"] }).stream?.endAfterHeaders) return NO_BODY;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Counts the body bytes a response sends (every writer goes through write/end: replies, watches, logs). */
export function countBodyBytes(res: Response, add: (bytes: number) => void): void {
  const size = (chunk: unknown) =>
    typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    add(size(chunk));
    return write(chunk, ...rest);
  }) as Response["write"];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    add(size(chunk));
    return end(chunk, ...rest);
  }) as Response["end"];
}
