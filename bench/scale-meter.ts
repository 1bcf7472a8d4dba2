/**
 * What the scale bench counts without touching the product (issue #36):
 * - a metering proxy in front of DynamoDB Local and fauxqs: every request of every function passes through it,
 *   counted per operation with its bytes; DynamoDB reads and writes ask for ReturnConsumedCapacity TOTAL (DynamoDB
 *   Local does not check signatures, and a client ignores the extra field) so the read and write units are
 *   DynamoDB's own figures; SQS requests are counted as billed (one request per 64 KB chunk of its payload);
 * - Lambda invocations: each handler wrapped, its invocations counted and its wall time summed (what Lambda bills).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface OperationCounts {
  requests: number;
  /** SQS: requests as billed, one per 64 KB chunk of the payload. */
  billed: number;
  readUnits: number;
  writeUnits: number;
  /** SQS send/receive: messages in the request or its answer. */
  messages: number;
  bytesIn: number;
  bytesOut: number;
}

export interface MeteringProxy {
  endpoint: string;
  /** Counts per operation (DynamoDB_20120810.Query -> "Query", AmazonSQS.SendMessageBatch -> "SendMessageBatch"). */
  snapshot(): Record<string, OperationCounts>;
  stop(): Promise<void>;
}

const DYNAMODB_READS = new Set(["GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"]);
const DYNAMODB_WRITES = new Set(["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"]);
const SQS_CHUNK = 64 * 1024;

const zero = (): OperationCounts => ({
  requests: 0,
  billed: 0,
  readUnits: 0,
  writeUnits: 0,
  messages: 0,
  bytesIn: 0,
  bytesOut: 0,
});

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function unitsOf(answer: Buffer): number {
  try {
    const consumed = (JSON.parse(answer.toString("utf8")) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    return ([consumed ?? []].flat() as { CapacityUnits?: number }[]).reduce((s, c) => s + (c?.CapacityUnits ?? 0), 0);
  } catch {
    return 0;
  }
}

function sqsMessages(operation: string, sent: Buffer, answer: Buffer): number {
  try {
    if (operation === "SendMessageBatch") return (JSON.parse(sent.toString()).Entries ?? []).length;
    if (operation === "SendMessage") return 1;
    if (operation === "ReceiveMessage") return (JSON.parse(answer.toString()).Messages ?? []).length;
  } catch {
    // A malformed body is the service's to refuse; it is not counted.
  }
  return 0;
}

/** A loopback proxy to `target` (http://127.0.0.1:PORT) that counts `service`'s requests. */
export async function startMeteringProxy(target: string, service: "dynamodb" | "sqs"): Promise<MeteringProxy> {
  const counts = new Map<string, OperationCounts>();
  const upstream = new URL(target);
  const server: Server = createServer(async (req, res) => {
    let sent = await bodyOf(req);
    const operation = String(req.headers["x-amz-target"] ?? "").replace(/^[^.]*\./, "") || "(none)";
    if (service === "dynamodb" && (DYNAMODB_READS.has(operation) || DYNAMODB_WRITES.has(operation))) {
      const input = JSON.parse(sent.toString("utf8") || "{}");
      input.ReturnConsumedCapacity ??= "TOTAL";
      sent = Buffer.from(JSON.stringify(input));
    }
    const headers = { ...req.headers, "content-length": String(sent.length), host: upstream.host };
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      async (answer) => {
        const body = await bodyOf(answer);
        const messages = service === "sqs" ? sqsMessages(operation, sent, body) : 0;
        // An empty receive is the event source's idle polling, counted apart (see docs/scale.md).
        const key = operation === "ReceiveMessage" && messages === 0 ? "ReceiveMessage(empty)" : operation;
        const count = counts.get(key) ?? zero();
        count.requests++;
        count.billed += service === "sqs" ? Math.max(1, Math.ceil(Math.max(sent.length, body.length) / SQS_CHUNK)) : 0;
        count.bytesIn += sent.length;
        count.bytesOut += body.length;
        if (DYNAMODB_READS.has(operation)) count.readUnits += unitsOf(body);
        if (DYNAMODB_WRITES.has(operation)) count.writeUnits += unitsOf(body);
        count.messages += messages;
        counts.set(key, count);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.end(body);
      },
    );
    forward.on("error", (error) => {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`metering proxy: ${error.message}`);
    });
    forward.end(sent);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    snapshot: () => Object.fromEntries([...counts].map(([op, c]) => [op, { ...c }])),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The sum over operations (optionally only those `keep` accepts) of `after` minus `before`. */
export function delta(
  after: Record<string, OperationCounts>,
  before: Record<string, OperationCounts>,
  keep: (operation: string) => boolean = () => true,
): OperationCounts {
  const total = zero();
  for (const [operation, now] of Object.entries(after)) {
    if (!keep(operation)) continue;
    const then = before[operation] ?? zero();
    for (const key of Object.keys(total) as (keyof OperationCounts)[]) total[key] += now[key] - then[key];
  }
  return total;
}

export interface InvocationCounts {
  invocations: number;
  /** Sum of the invocations' wall times (ms): what Lambda bills (rounded up to 1 ms each). */
  billedMs: number;
  /** Invocations that threw, plus records an SQS batch reported failed. */
  errors: number;
}

/** Lambda's bill per function: each handler wrapped counts here. */
export class LambdaMeter {
  readonly functions = new Map<string, InvocationCounts>();

  wrap<A extends unknown[], R>(name: string, handler: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const started = performance.now();
      const counts = this.functions.get(name) ?? { invocations: 0, billedMs: 0, errors: 0 };
      this.functions.set(name, counts);
      try {
        const result = await handler(...args);
        // An SQS batch's records that failed (ReportBatchItemFailures) are errors too: SQS redelivers them.
        counts.errors += (result as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures?.length ?? 0;
        return result;
      } catch (error) {
        counts.errors++;
        throw error;
      } finally {
        counts.invocations++;
        counts.billedMs += Math.ceil(performance.now() - started);
      }
    };
  }

  snapshot(): Record<string, InvocationCounts> {
    return Object.fromEntries([...this.functions].map(([name, c]) => [name, { ...c }]));
  }
}
