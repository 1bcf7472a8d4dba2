/**
 * The malformed-input table of `npm run soak` (and of test/local/server-malformed.test.ts):
 * raw HTTP requests an attacker or a broken client sends to the local server. Each
 * must be answered with a 4xx and the API's `{error: {code, message}}` shape, never
 * a bare status, a 5xx, a hang or a dropped connection. Sent over a raw socket,
 * since fetch() refuses to send most of them.
 */
import { connect } from "node:net";

export interface MalformedCase {
  name: string;
  /** The bytes written to the socket (a function for the big ones, built on demand). */
  request: () => Buffer;
  /** A specific status when one is expected (else any 4xx). */
  status?: number;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const CLUSTER = "demo-eu";
const host = "Host: 127.0.0.1\r\n";

function request(method: string, path: string, headers = "", body: string | Buffer = "", framed = true): () => Buffer {
  return () => {
    const bytes = typeof body === "string" ? Buffer.from(body) : body;
    const length = framed && (bytes.length > 0 || method === "POST") ? `content-length: ${bytes.length}\r\n` : "";
    return Buffer.concat([
      Buffer.from(`${method} ${path} HTTP/1.1\r\n${host}${headers}${length}connection: close\r\n\r\n`, "latin1"),
      bytes,
    ]);
  };
}

const importPath = `/clusters/${CLUSTER}/releases/import`;
const json = "content-type: application/json\r\n";

export function malformedCases(): MalformedCase[] {
  return [
    { name: "NUL in the path", request: request("GET", `/clusters/${CLUSTER}\0/releases`), status: 400 },
    { name: "control character in the path", request: request("GET", `/clusters/${CLUSTER}\x01/releases`) },
    { name: "unknown method", request: request("BREW", `/clusters/${CLUSTER}/releases`), status: 400 },
    { name: "method in lower case", request: request("get", `/clusters/${CLUSTER}/releases`) },
    { name: "known method, no route", request: request("PATCH", `/clusters/${CLUSTER}/releases`), status: 405 },
    {
      name: "headers over 16 KB",
      request: request("GET", `/clusters/${CLUSTER}/releases`, `x-big: ${"a".repeat(17 * 1024)}\r\n`),
      status: 431,
    },
    {
      name: "body over 10 MB (declared)",
      request: request("POST", importPath, `${json}content-length: ${11 * 1024 * 1024}\r\n`, "{", false),
      status: 413,
    },
    {
      name: "body over 10 MB (sent chunked)",
      request: () => {
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
        return Buffer.concat([
          request("POST", importPath, `${json}transfer-encoding: chunked\r\n`, "", false)(),
          ...Array.from({ length: 11 }, () => framed),
          Buffer.from("0\r\n\r\n"),
        ]);
      },
      status: 413,
    },
    {
      name: "dot segments: /namespaces/../releases",
      request: request("GET", `/clusters/${CLUSTER}/namespaces/../releases`),
      status: 400,
    },
    {
      name: "encoded dot segments",
      request: request("GET", `/clusters/${CLUSTER}/namespaces/%2e%2e/releases`),
      status: 400,
    },
    { name: "dot segment as the cluster", request: request("GET", "/clusters/../releases"), status: 400 },
    { name: "percent-encoded NUL", request: request("GET", `/clusters/${CLUSTER}%00/releases`), status: 400 },
    { name: "bad percent-encoding", request: request("GET", `/clusters/${CLUSTER}/namespaces/%zz/releases`) },
    { name: "unknown route", request: request("GET", "/nothing/here"), status: 404 },
    {
      name: "import: invalid UTF-8",
      request: request("POST", importPath, json, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
      status: 400,
    },
    { name: "import: [1,2,3]", request: request("POST", importPath, json, "[1,2,3]"), status: 400 },
    { name: "import: {}", request: request("POST", importPath, json, "{}"), status: 400 },
    {
      name: "import: not JSON",
      request: request("POST", importPath, json, '{"kind": "Secret", "data": '),
      status: 400,
    },
    { name: "import: empty body", request: request("POST", importPath, json, ""), status: 400 },
    {
      name: "import: YAML alias bomb",
      request: request(
        "POST",
        importPath,
        "content-type: application/yaml\r\n",
        "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nkind: List\nitems: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
      ),
      status: 400,
    },
    {
      name: "import: unsupported content-type",
      request: request("POST", importPath, "content-type: text/csv\r\n", "a,b"),
      status: 415,
    },
    {
      name: "invalid revision",
      request: request("GET", `/clusters/${CLUSTER}/namespaces/default/releases/web/status?revision=abc`),
      status: 400,
    },
    { name: "unknown query parameter", request: request("GET", `/clusters/${CLUSTER}/releases?evil=1`), status: 400 },
    { name: "invalid cluster name", request: request("GET", "/clusters/a%23b/releases"), status: 400 },
    {
      name: "unsupported Accept",
      request: request("GET", `/clusters/${CLUSTER}/releases`, "accept: image/png\r\n"),
      status: 406,
    },
  ];
}

/** Sends raw bytes and reads the whole answer (the server closes: every case says `connection: close`). */
export function sendRaw(port: number, bytes: Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    // The server may answer (413, 431) and close before it has read everything: that is fine.
    socket.on("error", (error) => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      const [statusLine, ...lines] = head.split("\r\n");
      const status = Number(statusLine.split(" ")[1]);
      if (!status) {
        reject(new Error(`no HTTP answer (${text.length} bytes)`));
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status, headers, body: text.slice(head.length + 4) });
    });
    socket.write(bytes);
  });
}

/** Whether an answer is a 4xx with the API's error shape. */
export function isShapedClientError(answer: RawAnswer): boolean {
  if (answer.status < 400 || answer.status >= 500) return false;
  if (!/^application\/json/.test(answer.headers["content-type"] ?? "")) return false;
  try {
    const body = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } };
    return typeof body.error?.code === "string" && typeof body.error?.message === "string";
  } catch {
    return false;
  }
}
