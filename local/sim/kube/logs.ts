/**
 * The `pods/{name}/log` subresource as the kubelet answers it through kube-apiserver: a deterministic log per
 * container instance (made from the pod's status: a crash ends with its exit code, an OOM just stops), with
 * `container`, `previous`, `tailLines`, `limitBytes`, `sinceSeconds` and `timestamps`, and kube-apiserver's 400s
 * (no such container, no previous instance, a container still waiting to start, a pod with no node).
 * Tests shape a log with pod annotations (docs/simulator.md, "Logs"): `sim.helm-status.dev/log` (lines for every
 * container), `sim.helm-status.dev/log.<container>` (one container), `sim.helm-status.dev/log-base64` (raw bytes,
 * e.g. invalid UTF-8), `sim.helm-status.dev/log-bytes` (filler lines first, up to that many bytes: a huge log),
 * `sim.helm-status.dev/log-stall: "true"` (the request is never answered: a wedged kubelet).
 */
import type { ServerResponse } from "node:http";
import type { ApiReply } from "./handlers.ts";
import { badRequest } from "./negotiation.ts";
import type { KubeObject } from "./types.ts";

// biome-ignore lint/suspicious/noExplicitAny: pod status is untyped JSON
type Json = any;

export const LOG_ANNOTATION = "sim.helm-status.dev/log";
const MAX_FILLER_BYTES = 256 * 1024 * 1024;
/** Larger answers are streamed in chunks rather than built in one buffer. */
const STREAM_ABOVE_BYTES = 1024 * 1024;

interface Instance {
  container: Json;
  status: Json;
  startedAt: number;
  endedAt: number;
  terminated?: { reason?: string; exitCode?: number };
}

/** One log, as lines each with its time; generated on demand so a 100 MB log is never held whole. */
interface Log {
  count: number;
  line(index: number): { at: number; text: Buffer };
}

function integerParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw badRequest(`${name}: Invalid value: "${value}": must be an integer`);
  if (n < (name === "tailLines" ? 0 : 1))
    throw badRequest(
      `${name}: Invalid value: ${n}: must be ${name === "tailLines" ? "greater than or equal to 0" : "greater than 0"}`,
    );
  return n;
}

function containerOf(pod: KubeObject, requested: string | null): { container: Json; status: Json } {
  const spec = (pod.spec ?? {}) as Json;
  const status = (pod.status ?? {}) as Json;
  const name = pod.metadata?.name ?? "";
  const containers: Json[] = spec.containers ?? [];
  const inits: Json[] = spec.initContainers ?? [];
  let chosen = requested;
  if (!chosen) {
    if (containers.length !== 1) {
      const names = containers.map((c) => c.name).join(" ");
      const initNames = inits.map((c) => c.name).join(" ");
      throw badRequest(
        `a container name must be specified for pod ${name}, choose one of: [${names}]${initNames ? ` or one of the init containers: [${initNames}]` : ""}`,
      );
    }
    chosen = containers[0].name;
  }
  const container = [...containers, ...inits].find((c) => c.name === chosen);
  if (!container) throw badRequest(`container ${chosen} is not valid for pod ${name}`);
  const statuses: Json[] = [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])];
  return { container, status: statuses.find((s) => s.name === chosen) };
}

/** Which instance a request reads: the running one, the last exited one, or (`previous`) the one before. */
function instanceOf(pod: KubeObject, container: Json, status: Json, previous: boolean, now: number): Instance {
  const podName = pod.metadata?.name ?? "";
  if (!(pod.spec as Json)?.nodeName) throw badRequest(`pod ${podName} does not have a host assigned`);
  const last = status?.lastState?.terminated;
  const time = (value: unknown, fallback: number) => (typeof value === "string" ? Date.parse(value) : fallback);
  if (previous) {
    if (!last) throw badRequest(`previous terminated container "${container.name}" in pod "${podName}" not found`);
    return {
      container,
      status,
      startedAt: time(last.startedAt, now),
      endedAt: time(last.finishedAt, now),
      terminated: last,
    };
  }
  const state = status?.state ?? {};
  if (state.running) return { container, status, startedAt: time(state.running.startedAt, now), endedAt: now };
  if (state.terminated) {
    const t = state.terminated;
    return { container, status, startedAt: time(t.startedAt, now), endedAt: time(t.finishedAt, now), terminated: t };
  }
  // CrashLoopBackOff: the exited container is still there, and its log is what `kubectl logs` shows.
  if (last)
    return {
      container,
      status,
      startedAt: time(last.startedAt, now),
      endedAt: time(last.finishedAt, now),
      terminated: last,
    };
  const reason = String(state.waiting?.reason ?? "ContainerCreating");
  const why = reason === "ImagePullBackOff" || reason === "ErrImagePull" ? "trying and failing to pull image" : reason;
  throw badRequest(`container "${container.name}" in pod "${podName}" is waiting to start: ${why}`);
}

function annotationLines(pod: KubeObject, container: string): Buffer[] {
  const annotations = pod.metadata?.annotations ?? {};
  const lines: Buffer[] = [];
  for (const key of [LOG_ANNOTATION, `${LOG_ANNOTATION}.${container}`]) {
    const value = annotations[key];
    if (typeof value === "string") for (const line of value.split("\n")) lines.push(Buffer.from(line));
  }
  const raw = annotations[`${LOG_ANNOTATION}-base64`];
  if (typeof raw === "string") lines.push(Buffer.from(raw, "base64"));
  return lines;
}

/** The log of one container instance: start-up lines, optional filler, planted lines, then how it ended. */
function logOf(pod: KubeObject, instance: Instance): Log {
  const { container, terminated } = instance;
  const port = container.ports?.[0]?.containerPort ?? 8080;
  const head = [
    `INFO starting ${container.name} (image ${container.image})`,
    "INFO configuration loaded from the environment",
    `INFO listening on :${port}`,
  ].map((text) => Buffer.from(text));
  const planted = annotationLines(pod, container.name);
  const tail: Buffer[] = [];
  if (terminated?.reason === "OOMKilled") tail.push(Buffer.from("INFO warming cache: loading 4096 entries"));
  else if (terminated && terminated.exitCode !== 0)
    tail.push(
      Buffer.from(`ERROR ${container.name}: fatal error during start-up, exiting with status ${terminated.exitCode}`),
    );
  else if (terminated) tail.push(Buffer.from("INFO done"));
  else if (instance.status?.ready === false) tail.push(Buffer.from("WARN GET /healthz 503: dependencies not ready"));
  const fillerBytes = Math.min(
    MAX_FILLER_BYTES,
    Number(pod.metadata?.annotations?.[`${LOG_ANNOTATION}-bytes`] ?? 0) || 0,
  );
  const fillerLine = (i: number) => Buffer.from(`DEBUG GET /api/items/${i} 200 3ms`);
  const fillerCount = fillerBytes > 0 ? Math.ceil(fillerBytes / 60) : 0;
  const count = head.length + fillerCount + planted.length + tail.length;
  const span = Math.max(0, instance.endedAt - instance.startedAt);
  // The application writes its own time first; planted lines are kept exactly as given.
  const own = (at: number, text: Buffer) => Buffer.concat([Buffer.from(`${new Date(at).toISOString()} `), text]);
  return {
    count,
    line(index) {
      const at = instance.startedAt + (count > 1 ? Math.floor((span * index) / (count - 1)) : 0);
      if (index < head.length) return { at, text: own(at, head[index]) };
      let i = index - head.length;
      if (i < fillerCount) return { at, text: own(at, fillerLine(i)) };
      i -= fillerCount;
      if (i < planted.length) return { at, text: planted[i] };
      return { at, text: own(at, tail[i - planted.length]) };
    },
  };
}

const stamp = (at: number) => new Date(at).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z");

/** GET pods/{name}/log: the reply (plain text, streamed when large). */
export function podLog(pod: KubeObject, query: URLSearchParams, now: Date): ApiReply {
  const previous = ["true", "1"].includes(query.get("previous") ?? "");
  const tailLines = integerParam(query, "tailLines");
  const limitBytes = integerParam(query, "limitBytes");
  const sinceSeconds = integerParam(query, "sinceSeconds");
  const timestamps = ["true", "1"].includes(query.get("timestamps") ?? "");
  if (query.get("sinceTime") && sinceSeconds !== undefined)
    throw badRequest("at most one of `sinceTime` or `sinceSeconds` may be specified");
  const { container, status } = containerOf(pod, query.get("container"));
  const instance = instanceOf(pod, container, status, previous, now.getTime());
  // A kubelet that never answers (a wedged node): nothing is sent until the client gives up or the server stops.
  if (pod.metadata?.annotations?.[`${LOG_ANNOTATION}-stall`] === "true") {
    return { status: 200, headers: {}, stream: () => {} };
  }
  const log = logOf(pod, instance);
  let start = tailLines === undefined ? 0 : Math.max(0, log.count - tailLines);
  if (sinceSeconds !== undefined) {
    const cutoff = now.getTime() - sinceSeconds * 1000;
    while (start < log.count && log.line(start).at < cutoff) start++;
  }
  const limit = limitBytes ?? Number.POSITIVE_INFINITY;
  const chunks = function* (): Generator<Buffer> {
    let sent = 0;
    for (let i = start; i < log.count && sent < limit; i++) {
      const { at, text } = log.line(i);
      const parts = timestamps ? [Buffer.from(`${stamp(at)} `), text] : [text];
      let line = Buffer.concat([...parts, Buffer.from("\n")]);
      if (sent + line.length > limit) line = line.subarray(0, limit - sent);
      sent += line.length;
      yield line;
    }
  };
  const headers = { "content-type": "text/plain" };
  const estimate = Math.min(limit, (log.count - start) * 80);
  if (estimate <= STREAM_ABOVE_BYTES) return { status: 200, body: Buffer.concat([...chunks()]), headers };
  return { status: 200, headers, stream: (res) => streamChunks(res, chunks(), headers) };
}

/** Writes a large log with backpressure, stopping when the client goes away. */
function streamChunks(res: ServerResponse, chunks: Generator<Buffer>, headers: Record<string, string>): void {
  res.writeHead(200, headers);
  const pump = () => {
    let batch: Buffer[] = [];
    let size = 0;
    for (let next = chunks.next(); !next.done; next = chunks.next()) {
      if (res.destroyed) return;
      const chunk = next.value;
      batch.push(chunk);
      size += chunk.length;
      if (size >= 64 * 1024) {
        const ok = res.write(Buffer.concat(batch));
        batch = [];
        size = 0;
        if (!ok) {
          res.once("drain", pump);
          return;
        }
      }
    }
    res.end(Buffer.concat(batch));
  };
  pump();
}
