/**
 * The tools on the status history (DynamoDB only, no cluster is read): the use cases of routes/history.ts,
 * routes/status-at.ts, routes/reliability.ts and the dashboard's timeline route, through the same `historyDeps`
 * (the caller's scope; a 502-kind error without SNAPSHOTS_TABLE), with the text their `?output=table` prints.
 */
import * as z from "zod";
import { ValidationError } from "../../../shared/errors.ts";
import { reliabilityOfRelease } from "../../../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../../../shared/usecases/reliability-scope.ts";
import { releaseReliabilityText, scopeReliabilityText } from "../../../shared/usecases/reliability-text.ts";
import { diffSnapshots, fleetHealth } from "../../../shared/usecases/snapshots.ts";
import { diffAt, statusAt, statusAtDocument, statusAtText } from "../../../shared/usecases/status-at.ts";
import { releaseTimeline } from "../../../shared/usecases/timeline.ts";
import { annotate } from "../../_shared/http/route.ts";
import { historyDeps } from "../routes/history.ts";
import { cluster, cursor, limit, namespace, optionalText, releaseInput, since, text, time, until } from "./inputs.ts";
import { defineTool, documentAnswer, plain } from "./tool.ts";

const releaseKey = z.looseObject({ cluster: z.string(), namespace: z.string(), name: z.string() });
const window = { since, until };
const figures = { windowMs: z.number(), coveredMs: z.number(), notes: z.array(z.string()) };

export const fleetHealthTool = defineTool({
  name: "fleet_health",
  title: "Fleet health",
  description:
    "Every audited release's latest health across the fleet, worst first, as the scheduled audits last saw it; " +
    "filter by health (comma-separated: Failed,InProgress,...) and cluster.",
  input: {
    health: optionalText("only these health values, comma-separated (Current, InProgress, Failed, Unknown, ...)"),
    cluster: cluster.optional(),
    limit: limit(1000, "at most this many releases"),
    cursor,
  },
  output: z.object({
    releases: z.array(z.looseObject({ release: releaseKey, health: z.looseObject({ overall: z.string() }) })),
    cursor: z.string().optional(),
  }),
  async run({ health, cluster, limit, cursor }, { deps, context }) {
    const page = await fleetHealth(historyDeps(deps, context), { health, cluster, limit, cursor });
    return documentAnswer({ releases: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) });
  },
});

export const statusAtTool = defineTool({
  name: "status_at",
  title: "Status as it was",
  description:
    "One release's status as the scheduled audits saw it at a past time: the recorded helm status text (with " +
    "HEALTH and WHY) of the snapshot covering that time, and which snapshot it is.",
  input: { ...releaseInput(true), at: time("the time to look at") },
  output: z.object({
    at: z.string(),
    coverage: z.string(),
    snapshot: z.looseObject({ id: z.string() }),
    text: z.string(),
  }),
  async run({ cluster, namespace, name, at }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    const result = await statusAt(historyDeps(deps, context), { cluster, namespace, name }, at);
    return { text: statusAtText(result), structured: plain(statusAtDocument(result)) };
  },
});

export const releaseTimelineTool = defineTool({
  name: "release_timeline",
  title: "Health over time",
  description:
    "One release's health over a time range (default the last 24 hours, at most 92 days) as the scheduled audits " +
    "saw it: stripes (one per stretch of unchanged health, with its revision, drift, missing objects and first " +
    "cause) and the revision, drift and health changes as events, oldest first. Snapshot ids go to snapshot_diff.",
  input: {
    ...releaseInput(),
    since: text("start of the range: RFC 3339 or a duration ago (30m, 6h, 7d; default 24h)").optional(),
    until,
  },
  output: z.object({
    release: releaseKey,
    since: z.string(),
    until: z.string(),
    stripes: z.array(z.looseObject({ snapshotId: z.string(), from: z.string(), to: z.string(), health: z.string() })),
    events: z.array(z.looseObject({ at: z.string(), snapshotId: z.string(), kind: z.string(), text: z.string() })),
    itemsRead: z.number(),
  }),
  async run({ cluster, namespace, name, since, until }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    return documentAnswer(
      await releaseTimeline(historyDeps(deps, context), { cluster, namespace, name }, { since, until }),
    );
  },
});

export const snapshotDiff = defineTool({
  name: "snapshot_diff",
  title: "What changed",
  description:
    "What changed in one release's status between two points of its history: give at (and against, default " +
    "the snapshot before) as times, or snapshot (an id from status_at) and optionally against as an id. " +
    "Answers the changes and the two status texts as a unified diff.",
  input: {
    ...releaseInput(),
    at: optionalText("a time: the snapshot covering it (RFC 3339 or a duration ago)"),
    snapshot: optionalText("a snapshot id instead of a time"),
    against: optionalText(
      "what to compare with: a time when at is given, else a snapshot id (default: the one before)",
    ),
  },
  output: z.object({ from: z.string(), to: z.string(), changes: z.array(z.unknown()), diff: z.string() }),
  async run({ cluster, namespace, name, at, snapshot, against }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    const history = historyDeps(deps, context);
    const key = { cluster, namespace, name };
    if ((at === undefined) === (snapshot === undefined)) {
      throw new ValidationError("give either at (a time) or snapshot (an id), not both or neither", "InvalidQuery");
    }
    if (at !== undefined && against === undefined) {
      throw new ValidationError("at needs against (the time to compare with)", "InvalidQuery");
    }
    const diff =
      at !== undefined
        ? await diffAt(history, key, at, against as string)
        : // An agent's answer is public: who made the revision, never an ARN (docs/who.md).
          await diffSnapshots(
            { ...history, attributions: deps.attributions, audience: "public" },
            snapshot as string,
            against,
            key,
          );
    return { text: diff.diff, structured: plain(diff) };
  },
});

export const releaseReliability = defineTool({
  name: "release_reliability",
  title: "Release reliability",
  description:
    "One release's reliability over a window (default the last 30 days): availability, time in each health, " +
    "incidents, flaps, deploys and failed deploys, and its error budget when it has an objective.",
  input: { ...releaseInput(), ...window },
  output: z.looseObject({ release: releaseKey, ...figures }),
  async run({ cluster, namespace, name, since, until }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    const report = await reliabilityOfRelease(
      historyDeps(deps, context),
      { cluster, namespace, name },
      { since, until },
    );
    return { text: releaseReliabilityText(report), structured: plain(report) };
  },
});

export const fleetReliability = defineTool({
  name: "fleet_reliability",
  title: "Fleet reliability",
  description:
    "The reliability of the fleet, a cluster, a namespace or a chart over a window (default 30 days), with its " +
    "worst releases.",
  input: {
    ...window,
    cluster: cluster.optional(),
    namespace: namespace.optional(),
    chart: optionalText("only releases of this chart (its name)"),
  },
  output: z.looseObject({ scope: z.looseObject({}), worst: z.array(z.unknown()), ...figures }),
  async run({ since, until, cluster, namespace, chart }, { deps, context }) {
    const report = await reliabilityOfScope(historyDeps(deps, context), { since, until, cluster, namespace, chart });
    return { text: scopeReliabilityText(report), structured: plain(report) };
  },
});
