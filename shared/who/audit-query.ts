/**
 * Which Logs Insights queries look up a batch of subjects (docs/who.md, "The lookup"): each subject gives a time
 * window around when its event must be, windows closer than `mergeGapMs` share one query, and a query names
 * every object it looks for (`objectRef.name = "…" or …`) up to Insights' query length, so 100 revisions made
 * within an hour are one query. Matching the events to the subjects is audit-match.ts's; a query only has to
 * return a superset.
 */
import type { AttributionSubject } from "./attribution.ts";
import { AUDIT_EVENT_FIELDS } from "./audit-events.ts";
import { targetOf } from "./audit-match.ts";

/** Where a revision's create may be, around its time (Helm writes the revision, then stores it). */
const REVISION_BEFORE_MS = 2 * 60_000;
const REVISION_AFTER_MS = 10 * 60_000;
/** Around a write's managedFields second. */
const WRITE_MARGIN_MS = 5_000;
/** Logs Insights' limit is 10,000 characters; the rest is headroom. */
const MAX_QUERY_LENGTH = 9_000;
/** The most rows one query returns (Insights' maximum): a query that returns as many is split. */
export const MAX_ROWS = 10_000;
/** Object names put in a query: Kubernetes names (and RBAC's `system:…`), nothing that needs escaping. */
const QUERYABLE_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;

export interface PlannedQuery {
  subjects: AttributionSubject[];
  /** Insights' window, in seconds since the epoch, both ends included. */
  startTime: number;
  endTime: number;
  queryString: string;
}

export interface QueryPlanOptions {
  /** Windows closer than this share one query (default 15 minutes): fewer queries, more log scanned. */
  mergeGapMs?: number;
  /**
   * When the batch needs more queries than this (default 5), the gap is widened (×4 at a time, up to 6 hours) so
   * that subjects spread over a day cost a few queries rather than one each.
   */
  targetQueries?: number;
}

/** The widest gap merged to meet `targetQueries`, and the longest window one query scans. */
const MAX_MERGE_GAP_MS = 6 * 60 * 60_000;
const MAX_SPAN_MS = 24 * 60 * 60_000;

/** The window (ms) in which a subject's audit event must be; undefined for a subject with no usable time. */
export function windowOf(subject: AttributionSubject): { from: number; to: number } | undefined {
  const at = Date.parse(subject.type === "revision" ? subject.createdAt : subject.at);
  if (Number.isNaN(at)) return undefined;
  return subject.type === "revision"
    ? { from: at - REVISION_BEFORE_MS, to: at + REVISION_AFTER_MS }
    : { from: at - WRITE_MARGIN_MS, to: at + 1000 + WRITE_MARGIN_MS };
}

const nameClause = (name: string) => `objectRef.name = "${name}"`;

/** The query for events naming any of `names`: the audit streams, the writing verbs, the fields matched on. */
export function insightsQuery(names: readonly string[]): string {
  return [
    `fields ${AUDIT_EVENT_FIELDS.join(", ")}`,
    `filter @logStream like "kube-apiserver-audit"`,
    `filter verb = "create" or verb = "patch" or verb = "update"`,
    `filter ${names.map(nameClause).join(" or ")}`,
    "sort @timestamp asc",
    `limit ${MAX_ROWS}`,
  ].join("\n| ");
}

/**
 * The queries for `subjects`, in time order. Subjects whose name could not be put in a query or whose time is
 * not a time are in none (they stay not found).
 */
export function planQueries(subjects: readonly AttributionSubject[], options: QueryPlanOptions = {}): PlannedQuery[] {
  const windowed = subjects
    .flatMap((subject) => {
      const window = windowOf(subject);
      const name = targetOf(subject).name;
      return window && QUERYABLE_NAME.test(name) ? [{ subject, name, ...window }] : [];
    })
    .sort((a, b) => a.from - b.from);
  const target = options.targetQueries ?? 5;
  let gap = options.mergeGapMs ?? 15 * 60_000;
  let plans = groupWindows(windowed, gap);
  while (plans.length > target && gap < MAX_MERGE_GAP_MS) {
    gap = Math.min(MAX_MERGE_GAP_MS, Math.max(gap, 60_000) * 4);
    plans = groupWindows(windowed, gap);
  }
  return plans;
}

type Windowed = { subject: AttributionSubject; name: string; from: number; to: number };

/** Windows (sorted by start) into queries: merged while the gap, the span and the query's length allow. */
function groupWindows(windowed: readonly Windowed[], gap: number): PlannedQuery[] {
  const plans: PlannedQuery[] = [];
  let group: { subjects: AttributionSubject[]; names: Set<string>; from: number; to: number } | undefined;
  let length = 0;
  const close = () => {
    if (!group) return;
    plans.push({
      subjects: group.subjects,
      startTime: Math.floor(group.from / 1000),
      endTime: Math.ceil(group.to / 1000),
      queryString: insightsQuery([...group.names]),
    });
  };
  for (const item of windowed) {
    const clause = nameClause(item.name).length;
    const fits =
      group !== undefined &&
      item.from <= group.to + gap &&
      Math.max(group.to, item.to) - group.from <= MAX_SPAN_MS &&
      (group.names.has(item.name) || length + clause <= MAX_QUERY_LENGTH);
    if (group && fits) {
      group.subjects.push(item.subject);
      if (!group.names.has(item.name)) length += clause;
      group.names.add(item.name);
      group.to = Math.max(group.to, item.to);
      continue;
    }
    close();
    group = { subjects: [item.subject], names: new Set([item.name]), from: item.from, to: item.to };
    length = insightsQuery([item.name]).length;
  }
  close();
  return plans;
}

/** A query that returned `MAX_ROWS` rows may have left events out: its subjects in two halves, by time. */
export function splitPlan(plan: PlannedQuery, options: QueryPlanOptions = {}): PlannedQuery[] | undefined {
  if (plan.subjects.length < 2) return undefined;
  const half = Math.ceil(plan.subjects.length / 2);
  return [
    ...planQueries(plan.subjects.slice(0, half), { ...options, mergeGapMs: 0, targetQueries: 1 }),
    ...planQueries(plan.subjects.slice(half), { ...options, mergeGapMs: 0, targetQueries: 1 }),
  ];
}
