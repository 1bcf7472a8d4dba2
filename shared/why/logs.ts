/**
 * The log excerpt of a cause: the last lines of the failing container's previous instance (the one that crashed;
 * the current one when it never restarted), read after the status's wave for the first few causes only, bounded by
 * the API server (`tailLines`, `limitBytes`) and again here, and masked (log-mask.ts) before it is kept. Off unless
 * the deployment enables it and the caller may read logs (docs/status.md "Log excerpts"), decided with the rest of
 * the caller's access to the release (clusters/namespace-access.ts `releaseAccess`): this file is told which.
 */
import type { LogAccess } from "../clusters/namespace-access.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Cause } from "./causes.ts";
import { CAUSES_SHOWN } from "./causes.ts";
import type { ContainerProblem } from "./containers.ts";
import { EXCERPT_BYTES, EXCERPT_LINES, maskedExcerpt } from "./log-mask.ts";

export type { LogExcerpt, LogUnread } from "./log-mask.ts";

export const NOT_GRANTED = "log excerpts are not granted to you (an access rule with logs: true)";

/** The values of the release's own Secrets as its manifest sets them (decoded), to mask wherever a log shows one. */
export function secretValuesOf(objects: readonly { kind: string; object: Record<string, unknown> }[]): string[] {
  const values: string[] = [];
  for (const { kind, object } of objects) {
    if (kind !== "Secret") continue;
    for (const [field, decode] of [
      ["data", (v: string) => Buffer.from(v, "base64").toString("utf8")],
      ["stringData", (v: string) => v],
    ] as const) {
      const map = object[field];
      if (typeof map !== "object" || map === null) continue;
      for (const value of Object.values(map)) if (typeof value === "string") values.push(decode(value));
    }
  }
  return values;
}

/** The container whose log explains the cause: one that crashed or ended, not one merely waiting for an image. */
function loggedContainer(cause: Cause): { pod: string; namespace?: string; container: ContainerProblem } | undefined {
  for (const pod of cause.pods) {
    const container = pod.containers.find((c) => c.lastTerminated || c.terminated);
    if (container) return { pod: pod.pod, namespace: pod.namespace ?? cause.namespace, container };
  }
  return undefined;
}

/**
 * Adds `log` to the first CAUSES_SHOWN causes that have a crashed container: the excerpt, or why there is none.
 * `secretValues`: the release's Secret values (decoded), masked wherever they appear. Never throws: a read that
 * fails, is forbidden or runs out of time is that cause's `unread`.
 */
export async function attachLogExcerpts(
  kube: Pick<KubeReader, "withSession">,
  input: { cluster: string; causes: Cause[]; access: LogAccess; secretValues: readonly string[]; deadline?: number },
): Promise<void> {
  const wanted = input.causes.slice(0, CAUSES_SHOWN).flatMap((cause) => {
    const logged = loggedContainer(cause);
    return logged?.namespace ? [{ cause, ...logged, namespace: logged.namespace }] : [];
  });
  if (wanted.length === 0) return;
  if (input.access === "not-granted") {
    for (const { cause, container } of wanted) cause.log = { container: container.container, unread: NOT_GRANTED };
    return;
  }
  await kube
    .withSession(input.cluster, { deadline: input.deadline }, (session) =>
      Promise.all(
        wanted.map(async ({ cause, pod, namespace, container }) => {
          const previous = container.lastTerminated !== undefined && container.terminated === undefined;
          const path =
            `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log` +
            `?container=${encodeURIComponent(container.container)}&previous=${previous}` +
            `&tailLines=${EXCERPT_LINES}&limitBytes=${EXCERPT_BYTES}`;
          // kubectl asks with "application/json, */*": the log itself is text/plain.
          const result = await session.request(path, "*/*");
          const name = container.container;
          if (result.kind === "deadline") cause.log = { container: name, unread: "not read in time" };
          else if (result.kind === "failed") cause.log = { container: name, unread: result.message };
          else if (result.response.status === 403) cause.log = { container: name, unread: "get pods/log forbidden" };
          else if (result.response.status !== 200) {
            cause.log = { container: name, unread: `HTTP ${result.response.status}` };
          } else {
            const bytes = Buffer.from(result.response.body, "utf8");
            cause.log = { container: name, previous, ...maskedExcerpt(bytes, input.secretValues) };
          }
        }),
      ),
    )
    .catch((error: unknown) => {
      for (const { cause, container } of wanted) {
        cause.log ??= { container: container.container, unread: (error as Error).message };
      }
    });
}
