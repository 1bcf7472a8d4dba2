import { isRecord, type ManifestObject } from "../manifest/manifest.ts";
import type { ReadOutcome } from "./read-outcome.ts";
import type { Table } from "./table.ts";

/**
 * Helm's related pods (helm-status.md §2.4): for every workload of the manifest, the pods its `matchLabels`
 * select, one entry per distinct selector. Helm lists them one selector at a time. Here the selectors of one
 * namespace that differ in one label only (a chart's Deployments: the same `app.kubernetes.io/instance`, each
 * its own `app.kubernetes.io/name`) share one set-based LIST (`name in (api,web),instance=demo`), and its rows
 * are split back per selector by each pod's labels. Same rows, same order (a LIST is sorted by name either
 * way), one request to the API server instead of one per workload: fewer streams in the wave, fewer
 * API Priority and Fairness seats.
 */

export interface RelatedPods {
  namespace: string;
  /** `spec.selector.matchLabels` (or a ReplicationController's `spec.selector`) from the manifest. */
  selector: Record<string, string>;
  /** Manifest indexes of the workloads sharing this selector. */
  owners: number[];
  outcome: ReadOutcome;
  message?: string;
  table?: Table;
}

/** A pods LIST's outcome, as the caller interprets the answer (redacted Table or why not). */
export interface PodsAnswer {
  outcome: ReadOutcome;
  message?: string;
  table?: Table;
}

/** One pods LIST: its namespace, its `labelSelector`, and the selectors whose pods it returns. */
export interface PodsList {
  namespace: string;
  labelSelector: string;
  members: RelatedPods[];
}

const MATCH_LABELS_KINDS = new Set(["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"]);
/** Bounds one LIST's selector (~64 bytes a value): a query string well under any proxy's URL limit. */
const MAX_SELECTORS_PER_LIST = 32;
/** A label value a set-based requirement can carry (labels.Parse); anything else is listed on its own. */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * Helm's related-pods rule, with identical selectors (same namespace) read once. A selector without
 * matchLabels is skipped: Helm would list every pod of the namespace.
 */
export function relatedSelectors(objects: readonly ManifestObject[], releaseNamespace: string): RelatedPods[] {
  const byKey = new Map<string, RelatedPods>();
  for (const object of objects) {
    const selector = selectorOf(object);
    if (!selector || Object.keys(selector).length === 0) continue;
    const namespace = object.namespace ?? releaseNamespace;
    const key = `${namespace}|${JSON.stringify(Object.entries(selector).sort(([a], [b]) => a.localeCompare(b)))}`;
    const existing = byKey.get(key);
    if (existing) existing.owners.push(object.index);
    else byKey.set(key, { namespace, selector, owners: [object.index], outcome: "not-read-in-time" });
  }
  return [...byKey.values()];
}

/**
 * The LISTs that read these selectors: those of one namespace with the same keys and at most one key whose
 * value differs share a LIST (up to MAX_SELECTORS_PER_LIST), so the set-based selector matches exactly the
 * union of theirs; any other selector is listed alone, as Helm writes it (keys sorted, `k=v,…`).
 */
export function podsLists(selectors: readonly RelatedPods[]): PodsList[] {
  // Each selector could share a LIST over any one of its keys: the group named by its namespace, that key and
  // the other keys' values. It joins the group most selectors could join (a chart's common labels win).
  const candidates = new Map<RelatedPods, { group: string; varying: string }[]>();
  const popularity = new Map<string, number>();
  const lists: PodsList[] = [];
  for (const related of selectors) {
    const keys = Object.keys(related.selector).sort();
    if (!keys.every((key) => LABEL_VALUE.test(related.selector[key]))) {
      lists.push(single(related));
      continue;
    }
    const options = keys.map((varying) => ({
      varying,
      group: JSON.stringify([
        related.namespace,
        varying,
        keys.map((key) => (key === varying ? key : [key, related.selector[key]])),
      ]),
    }));
    for (const { group } of options) popularity.set(group, (popularity.get(group) ?? 0) + 1);
    candidates.set(related, options);
  }
  const groups = new Map<string, { varying: string; members: RelatedPods[] }>();
  for (const [related, options] of candidates) {
    const best = options.reduce((a, b) => ((popularity.get(b.group) ?? 0) > (popularity.get(a.group) ?? 0) ? b : a));
    const group = groups.get(best.group) ?? { varying: best.varying, members: [] };
    group.members.push(related);
    groups.set(best.group, group);
  }
  for (const { varying, members } of groups.values()) {
    for (let start = 0; start < members.length; start += MAX_SELECTORS_PER_LIST) {
      const chunk = members.slice(start, start + MAX_SELECTORS_PER_LIST);
      lists.push(chunk.length === 1 ? single(chunk[0]) : shared(chunk, varying));
    }
  }
  return lists;
}

/**
 * Reads every selector's pods through `list` (one call per PodsList; a caller's failure becomes an `error`
 * outcome), in the order of `selectors`. A shared LIST's rows are split by each pod's labels; if a row came
 * without its object (a server that ignores includeObject) the split is impossible, and those selectors are
 * listed one by one.
 */
export async function readRelatedPods(
  selectors: readonly RelatedPods[],
  list: (namespace: string, labelSelector: string) => Promise<PodsAnswer>,
): Promise<RelatedPods[]> {
  const read = (namespace: string, labelSelector: string) =>
    list(namespace, labelSelector).catch(
      (error): PodsAnswer => ({ outcome: "error", message: (error as Error).message }),
    );
  const results = new Map<RelatedPods, RelatedPods>();
  await Promise.all(
    podsLists(selectors).map(async ({ namespace, labelSelector, members }) => {
      const answer = await read(namespace, labelSelector);
      const table = answer.table;
      if (members.length === 1 || !table) {
        for (const member of members) results.set(member, { ...member, ...answer });
        return;
      }
      if (table.rows.some((row) => !isRecord(row.object))) {
        await Promise.all(
          members.map(async (member) => {
            results.set(member, { ...member, ...(await read(member.namespace, equalitySelector(member.selector))) });
          }),
        );
        return;
      }
      for (const member of members) {
        const rows = table.rows.filter((row) => labelsMatch(member.selector, row.object));
        results.set(member, { ...member, ...answer, table: { ...table, rows } });
      }
    }),
  );
  return selectors.map((related) => results.get(related) ?? related);
}

function shared(members: RelatedPods[], varying: string): PodsList {
  const first = members[0].selector;
  const values = [...new Set(members.map((member) => member.selector[varying]))].sort();
  const labelSelector = Object.keys(first)
    .sort()
    .map((key) => (key === varying ? `${key} in (${values.join(",")})` : `${key}=${first[key]}`))
    .join(",");
  return { namespace: members[0].namespace, labelSelector, members };
}

function single(related: RelatedPods): PodsList {
  return { namespace: related.namespace, labelSelector: equalitySelector(related.selector), members: [related] };
}

/** Helm's own form of a selector: keys sorted, `k=v,…`. */
export function equalitySelector(selector: Record<string, string>): string {
  return Object.keys(selector)
    .sort()
    .map((key) => `${key}=${selector[key]}`)
    .join(",");
}

/** Whether an object's labels carry every `key: value` of a matchLabels selector (equality only, like Helm). */
export function labelsMatch(selector: Record<string, string>, object: unknown): boolean {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : undefined;
  const labels = metadata && isRecord(metadata.labels) ? metadata.labels : {};
  for (const key in selector) if (labels[key] !== selector[key]) return false;
  return true;
}

function selectorOf(object: ManifestObject): Record<string, string> | undefined {
  const spec = isRecord(object.object.spec) ? object.object.spec : undefined;
  if (!spec || !isRecord(spec.selector)) return undefined;
  let labels: unknown;
  if (MATCH_LABELS_KINDS.has(object.kind)) labels = spec.selector.matchLabels;
  else if (object.kind === "ReplicationController") labels = spec.selector;
  if (!isRecord(labels)) return undefined;
  return Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
}
