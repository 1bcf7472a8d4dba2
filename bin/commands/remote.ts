/**
 * `remote status|list|history|snapshots|drift|health …`: the deployed API, asked with the caller's AWS
 * credentials (SigV4), and its answer printed as it came: the text routes byte for byte (`?output=table`), the
 * JSON/YAML documents with -o. What `helm fleet …` runs (helm-plugin/). Flags: bin/lib/remote.ts.
 */

import type { DriftReport } from "../../shared/drift/types.ts";
import { ValidationError } from "../../shared/errors.ts";
import { driftHeaderLine, driftSection } from "../../shared/render/status/drift.ts";
import { HELM_LIST_FLAGS } from "../lib/args.ts";
import { defineCommand, defineCommandGroup } from "../lib/define-command.ts";
import {
  OUTPUT_FLAG,
  REMOTE_FLAGS,
  REMOTE_FLAGS_HELP,
  type RemoteTarget,
  remoteOutput,
  remoteRelease,
  remoteTarget,
} from "../lib/remote.ts";
import type { CliIO } from "../lib/run.ts";
import { renderSnapshotsTable } from "../lib/snapshots-table.ts";

async function print(io: CliIO, target: RemoteTarget, path: string, query: Record<string, string | undefined>) {
  const answer = await target.api.request({ method: "GET", path, query, timeoutMs: target.timeoutMs });
  io.stdout.write(answer.body);
  return 0;
}

const status = defineCommand({
  help: `usage: npm run --silent cli -- remote status RELEASE [-n NS] [--revision N] [-o table|json|yaml] [--no-drift]

The API's GET .../releases/RELEASE/status, printed as it answers (the text form by default).
      --revision N           that revision instead of the latest
  -o, --output FORMAT        table (default), json or yaml
      --no-drift             skip the drift comparison
${REMOTE_FLAGS_HELP}`,
  options: {
    ...REMOTE_FLAGS,
    ...OUTPUT_FLAG,
    revision: { type: "string", int: true },
    "no-drift": { type: "boolean" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const { output, target, path } = remoteRelease("status", io.env, values, positionals);
    const drift = values["no-drift"] ? "false" : undefined;
    return print(io, target, `${path}/status`, { output, revision: values.revision, drift });
  },
});

const LIST_BOOLEANS = ["deployed", "failed", "pending", "superseded", "uninstalled", "uninstalling"] as const;

const list = defineCommand({
  help: `usage: npm run --silent cli -- remote list [-n NS | -A] [helm list flags] [-o table|json|yaml]

The API's GET /clusters/C[/namespaces/NS]/releases: what 'helm list' prints, for the cluster's stored releases.
  -A, --all-namespaces       every namespace
      --deployed, --failed, --pending, --superseded, --uninstalled, --uninstalling   only these states
      --status S             exactly this status
  -f, --filter REGEX  -l, --selector SEL  -m, --max N  --offset N  -d, --date  -r, --reverse  -q, --short
      --time-format FORMAT   as helm list
  -o, --output FORMAT        table (default), json or yaml
${REMOTE_FLAGS_HELP}`,
  options: {
    ...REMOTE_FLAGS,
    ...OUTPUT_FLAG,
    ...HELM_LIST_FLAGS,
  },
  async run({ values }, io) {
    const output = remoteOutput(values.output);
    const target = remoteTarget(io.env, values);
    const all = values["all-namespaces"];
    if (all && values.namespace !== undefined) throw new ValidationError("use either -n NAMESPACE or -A, not both");
    const path = all
      ? `/clusters/${target.cluster}/releases`
      : `/clusters/${target.cluster}/namespaces/${target.namespace}/releases`;
    const flag = (on: boolean | undefined) => (on ? "true" : undefined);
    const states = Object.fromEntries(
      LIST_BOOLEANS.map((state) => [state, flag(values[state] as boolean | undefined)]),
    );
    return print(io, target, path, {
      output,
      ...states,
      status: values.status,
      filter: values.filter,
      selector: values.selector,
      max: values.max,
      offset: values.offset,
      date: flag(values.date),
      reverse: flag(values.reverse),
      short: flag(values.short),
      timeFormat: values["time-format"],
    });
  },
});

const history = defineCommand({
  help: `usage: npm run --silent cli -- remote history RELEASE [-n NS] [--max N] [--who] [-o table|json|yaml]

The API's GET .../releases/RELEASE/history: what 'helm history' prints; --who adds a WHO column (who created
each revision, from the EKS audit log: docs/who.md).
${REMOTE_FLAGS_HELP}`,
  options: { ...REMOTE_FLAGS, ...OUTPUT_FLAG, max: { type: "string", int: true }, who: { type: "boolean" } },
  positionals: true,
  async run({ values, positionals }, io) {
    const { output, target, path } = remoteRelease("history", io.env, values, positionals);
    return print(io, target, `${path}/history`, { output, max: values.max, who: values.who ? "true" : undefined });
  },
});

const snapshots = defineCommand({
  help: `usage: npm run --silent cli -- remote snapshots RELEASE [-n NS] [--since T] [--until T] [--limit N] [-o table|json|yaml]

The API's GET .../releases/RELEASE/snapshots (the status history of the scheduled audits), newest first;
as a table like the local 'snapshots' command, or the API's document with -o json|yaml.
${REMOTE_FLAGS_HELP}`,
  options: {
    ...REMOTE_FLAGS,
    ...OUTPUT_FLAG,
    since: { type: "string" },
    until: { type: "string" },
    limit: { type: "string" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const { output, target, path: release } = remoteRelease("snapshots", io.env, values, positionals);
    const path = `${release}/snapshots`;
    const query = { since: values.since, until: values.until, limit: values.limit };
    if (output !== "table") return print(io, target, path, { ...query, output });
    const answer = await target.api.request({ method: "GET", path, query, timeoutMs: target.timeoutMs });
    io.stdout.write(renderSnapshotsTable(JSON.parse(answer.body)));
    return 0;
  },
});

const drift = defineCommand({
  help: `usage: npm run --silent cli -- remote drift RELEASE [-n NS] [--revision N] [-o table|json|yaml]

What changed behind Helm's back: the DRIFT line and section of the API's status (docs/drift.md), or its
"drift" document with -o json|yaml. Exits 0 either way; "no drift" when the live objects match.
${REMOTE_FLAGS_HELP}`,
  options: { ...REMOTE_FLAGS, ...OUTPUT_FLAG, revision: { type: "string", int: true } },
  positionals: true,
  async run({ values, positionals }, io) {
    const { output, target, path } = remoteRelease("drift", io.env, values, positionals);
    const answer = await target.api.request({
      method: "GET",
      path: `${path}/status`,
      query: { output: "json", revision: values.revision },
      timeoutMs: target.timeoutMs,
    });
    const report = JSON.parse(answer.body) as { drift?: DriftReport; observedAt: string; name?: string };
    const document = report.drift ?? { fields: [], conflicts: 0, benign: 0 };
    if (output === "json") {
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      return 0;
    }
    if (output === "yaml") {
      const { stringify } = await import("yaml");
      io.stdout.write(stringify(document));
      return 0;
    }
    const section = driftSection(report as Parameters<typeof driftSection>[0]);
    io.stdout.write(section ? `${driftHeaderLine(report.drift)}==> DRIFT\n${section}` : "DRIFT: none\n");
    return 0;
  },
});

const health = defineCommand({
  help: `usage: npm run --silent cli -- remote health [--health Failed,Unknown] [--cluster C] [-o json|yaml]

The API's GET /fleet/health: the latest audited health of every release, worst first.
${REMOTE_FLAGS_HELP}`,
  options: { ...REMOTE_FLAGS, ...OUTPUT_FLAG, health: { type: "string" } },
  async run({ values }, io) {
    const target = remoteTarget(io.env, values, { needsCluster: false });
    const output = values.output ?? "json";
    return print(io, target, "/fleet/health", {
      health: values.health,
      cluster: values.cluster,
      output: remoteOutput(output),
    });
  },
});

export const run = defineCommandGroup({
  name: "remote",
  help: `usage: npm run --silent cli -- remote COMMAND [ARGS]

Asks the deployed API (signed with SigV4 by your AWS credentials) and prints its answer; 'helm fleet' runs these.
  status RELEASE       live status, as 'helm status' (+ HEALTH, MISSING, DRIFT)
  list                 the stored releases, as 'helm list'
  history RELEASE      as 'helm history'
  snapshots RELEASE    the status history (scheduled audits)
  drift RELEASE        what changed outside Helm
  health               the fleet's latest audited health

Run 'npm run --silent cli -- remote COMMAND --help' for its flags.
`,
  commands: { status, list, history, snapshots, drift, health },
});
