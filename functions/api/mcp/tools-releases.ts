/**
 * The tools on the stored releases and the live status: the use cases of routes/meta.ts, routes/releases.ts and
 * routes/status.ts, in the caller's scope (scopeFor: the registry, narrowed by a signed-in viewer's grants), with
 * the same text those routes print for `?output=table`.
 */
import * as z from "zod";
import { statusDocument } from "../../../shared/render/status/json.ts";
import { renderStatusText } from "../../../shared/render/status/text.ts";
import {
  helmHistoryElements,
  helmListElements,
  renderHelmHistory,
  renderHelmListAs,
} from "../../../shared/render/tables/release-tables.ts";
import { helmList, LIST_STATE_FLAGS } from "../../../shared/usecases/helm-list.ts";
import { releaseHistory } from "../../../shared/usecases/history.ts";
import { getManifest } from "../../../shared/usecases/manifest.ts";
import { releaseStatus } from "../../../shared/usecases/status.ts";
import { annotate } from "../../_shared/http/route.ts";
import { deadlineFrom } from "../../_shared/runtime.ts";
import { listQueryFrom, nextListCursor } from "../list-query.ts";
import { scopeFor } from "../viewer.ts";
import {
  asQuery,
  cluster,
  cursor,
  flag,
  limit,
  namespace,
  optionalText,
  releaseInput,
  revision,
  status,
} from "./inputs.ts";
import { defineTool, documentAnswer, plain } from "./tool.ts";

const releaseKey = z.looseObject({ cluster: z.string(), namespace: z.string(), name: z.string() });
const nextCursor = z.string().optional().describe("pass as cursor for the next page");

export const listClusters = defineTool({
  name: "list_clusters",
  title: "List clusters",
  description: "The EKS clusters this service reads (names and regions), narrowed to what the caller may see.",
  input: {},
  output: z.object({ clusters: z.array(z.object({ name: z.string(), region: z.string() })) }),
  async run(_args, { deps, context }) {
    const scope = scopeFor(deps, context);
    const clusters = (scope === "any" ? [] : scope.list()).map(({ name, region }) => ({ name, region }));
    return documentAnswer({ clusters });
  },
});

const stateFlags = Object.fromEntries(
  Object.keys(LIST_STATE_FLAGS).map((state) => [state, flag(`only ${state} releases (helm list --${state})`)]),
) as Record<keyof typeof LIST_STATE_FLAGS, ReturnType<typeof flag>>;

export const listReleases = defineTool({
  name: "list_releases",
  title: "helm list",
  description:
    "helm list for one cluster's stored releases (every namespace unless namespace is given), with helm list's " +
    "filters: state flags, status, filter (a regular expression on the name), selector (labels), max, offset, " +
    "date and reverse ordering.",
  input: {
    cluster,
    namespace: namespace.optional(),
    ...stateFlags,
    status,
    filter: optionalText("a regular expression the release name must match (helm list -f)"),
    selector: optionalText("a label selector on the release's labels (helm list -l)"),
    max: limit(10_000, "at most this many releases (default 256)"),
    offset: z.int().min(0).describe("skip this many after sorting").optional(),
    cursor,
    date: flag("sort by last deployed time (helm list -d)"),
    reverse: flag("reverse the order (helm list -r)"),
    timeFormat: optionalText("a Go time layout for UPDATED (helm list --time-format)"),
  },
  output: z.object({
    releases: z.array(z.looseObject({ name: z.string(), namespace: z.string(), status: z.string() })),
    cursor: nextCursor,
  }),
  async run(args, { deps, context }) {
    const { cluster, namespace, ...rest } = args;
    const list = listQueryFrom(asQuery(rest));
    annotate(context, { cluster });
    const clusters = scopeFor(deps, context);
    const result = await helmList({ store: deps.store, clusters }, { cluster, namespace, ...list.query });
    const releases = helmListElements(result.releases, list.timeFormat);
    const next = result.nextOffset === undefined ? {} : { cursor: nextListCursor(result.nextOffset) };
    return {
      text: renderHelmListAs(result.releases, "table", { timeFormat: list.timeFormat }),
      structured: plain({ releases, ...next }),
    };
  },
});

export const releaseStatusTool = defineTool({
  name: "release_status",
  title: "helm status",
  description:
    "helm status of one release, read live from its cluster: its resources with a HEALTH column, MISSING " +
    "objects, DRIFT from the manifest, whether the stored release is current (STORED), and WHY an unhealthy " +
    "resource is not ready (container states and cause chains). Secret values are redacted.",
  input: {
    ...releaseInput(true),
    revision,
    drift: flag("compare the live objects with the manifest (default true)"),
  },
  output: z.looseObject({
    name: z.string(),
    namespace: z.string(),
    version: z.number(),
    cluster: z.string(),
    health: z.looseObject({ overall: z.string() }),
    missing: z.array(z.unknown()),
    complete: z.boolean(),
    causes: z.array(z.unknown()).optional(),
  }),
  async run({ cluster, namespace, name, revision, drift }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    const now = deps.kube.clock.now().getTime();
    const report = await releaseStatus(
      {
        store: deps.store,
        kube: deps.kube,
        logger: deps.logger,
        scope: scopeFor(deps, context),
        attributions: deps.attributions,
      },
      {
        cluster,
        namespace,
        name,
        revision,
        // An agent's answer is public: who made a write, never an ARN or account id (docs/who.md).
        audience: "public",
        deadline: deadlineFrom(context, deps.settings.deadlineMarginMs, { now }),
        drift: drift ?? true,
        logExcerpts: deps.settings.logExcerpts,
      },
    );
    annotate(context, { revision: report.release.version, partial: !report.complete });
    return { text: renderStatusText(report), structured: plain(statusDocument(report)) };
  },
});

export const releaseHistoryTool = defineTool({
  name: "release_history",
  title: "helm history",
  description: "helm history of one release (revisions, newest first; metadata only, never the values).",
  input: { ...releaseInput(), max: limit(1000, "at most this many revisions"), cursor },
  output: z.object({ history: z.array(z.looseObject({ revision: z.number() })), cursor: nextCursor }),
  async run({ cluster, namespace, name, max, cursor }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    const clusters = scopeFor(deps, context);
    // An agent's answer is public: who made a revision, never an ARN or account id (docs/who.md).
    const page = await releaseHistory(
      { store: deps.store, clusters, attributions: deps.attributions, logger: deps.logger },
      { cluster, namespace, name },
      { max, cursor, audience: "public" },
    );
    const history = helmHistoryElements(page.items);
    return {
      text: renderHelmHistory(page.items),
      structured: plain({ history, ...(page.cursor ? { cursor: page.cursor } : {}) }),
    };
  },
});

export const releaseManifest = defineTool({
  name: "release_manifest",
  title: "helm get manifest",
  description: "helm get manifest of one release's revision (the latest by default), Secret values redacted.",
  input: { ...releaseInput(true), revision },
  output: releaseKey.extend({ revision: z.number(), manifest: z.string() }),
  async run({ cluster, namespace, name, revision }, { deps, context }) {
    annotate(context, { cluster, release: `${namespace}/${name}` });
    const key = { cluster, namespace, name };
    const stored = await getManifest({ store: deps.store, clusters: scopeFor(deps, context) }, key, revision);
    return {
      text: `${stored.manifest}\n`,
      structured: plain({ ...key, revision: stored.revision, manifest: stored.manifest }),
    };
  },
});
