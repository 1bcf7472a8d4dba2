/**
 * Log excerpts in the status's WHY (issue #33): off unless the deployment turns them on; then read for IAM callers
 * and, on the dashboard's mount, only for people an access rule grants `logs: true`; masked before they leave (a
 * planted value of the release's own Secret never reaches an answer); a 100 MB log is read bounded.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Grants } from "../../shared/access/grants.ts";
import { viewerScope } from "../../shared/clusters/scope.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { EXCERPT_BYTES } from "../../shared/why/log-mask.ts";
import { NOT_GRANTED } from "../../shared/why/logs.ts";
import { crashingDeployment, manifestOf, releaseOnSimForFile } from "../support/release-on-sim.ts";

const PLANTED = "pl4nted-db-pa55word";
const CLUSTER = "logs";

const SECRET = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "db", namespace: "shop" },
  data: { password: Buffer.from(PLANTED).toString("base64") },
};
const OBJECTS = [
  SECRET,
  // Planted as base64, so the Deployment's own annotation (shown in -o json) does not carry the value as text.
  crashingDeployment("crash", {
    "sim.helm-status.dev/log-base64": Buffer.from(`connecting as app with ${PLANTED}\npanic: no database\n`).toString(
      "base64",
    ),
  }),
  crashingDeployment("huge", { "sim.helm-status.dev/log-bytes": String(100 * 1024 * 1024) }),
];
const MANIFEST = manifestOf(OBJECTS);

const { sim, kube, store } = releaseOnSimForFile({ cluster: CLUSTER, manifest: MANIFEST });

const status = (logExcerpts: boolean, grants?: Grants) =>
  releaseStatus(
    {
      store,
      kube: kube(),
      logger: silentLogger,
      ...(grants ? { scope: viewerScope(kube().connector, grants) } : {}),
    },
    { cluster: CLUSTER, namespace: "shop", name: "app", drift: false, freshness: false, logExcerpts },
  );

test("off by default: no log is read, nothing is said", async () => {
  const cluster = sim().cluster(CLUSTER);
  cluster.resetStats();
  const report = await status(false);
  assert.ok(report.causes?.length);
  assert.ok(report.causes.every((c) => c.log === undefined));
  assert.ok(!Object.keys(cluster.stats().byPath).some((path) => path.endsWith("/log")));
});

test("on, for an IAM caller: the crashed instance's last lines, the release's Secret value masked everywhere", async () => {
  const report = await status(true);
  const crash = report.causes?.find((c) => c.name === "crash");
  assert.ok(crash?.log && "lines" in crash.log, JSON.stringify(crash?.log));
  assert.equal(crash.log.previous, true);
  assert.ok(crash.log.lines.includes("panic: no database"));
  assert.ok(crash.log.lines.includes("connecting as app with ****"));
  for (const answer of [renderStatusText(report), renderStatusJson(report), renderStatusYaml(report)]) {
    assert.ok(!answer.includes(PLANTED), "the planted Secret value never leaves");
  }
  assert.match(
    renderStatusText(report),
    /LOG crash\/app \(previous instance, last \d+ lines(, cut)?\)\n[\s\S]*panic: no database/,
  );
  // A 100 MB log: what was read is bounded by the API server's limitBytes and again here.
  const huge = report.causes?.find((c) => c.name === "huge");
  assert.ok(huge?.log && "lines" in huge.log);
  assert.ok(huge.log.lines.join("\n").length <= EXCERPT_BYTES);
});

test("a person without the logs grant gets no log and is told why; with it, the excerpt", async () => {
  const readOnly = new Grants([{ clusters: [CLUSTER], namespaces: ["shop"] }]);
  const denied = await status(true, readOnly);
  const crash = denied.causes?.find((c) => c.name === "crash");
  assert.deepEqual(crash?.log, { container: "app", unread: NOT_GRANTED });
  assert.match(renderStatusText(denied), /LOG +NOT SHOWN\ncrash\/app +log excerpts are not granted to you/);
  const withLogs = new Grants([{ clusters: [CLUSTER], namespaces: ["shop"], logs: true }]);
  const granted = await status(true, withLogs);
  const log = granted.causes?.find((c) => c.name === "crash")?.log;
  assert.ok(log && "lines" in log && log.lines.includes("panic: no database"));
});

test("the access maps' `logs` grant: true or false, anything else refused at start", async () => {
  const { parseViewerAccessMap, resolveViewer } = await import("../../shared/access/viewer-access.ts");
  const map = parseViewerAccessMap(
    JSON.stringify({
      groups: [
        { group: "sre", clusters: "*", logs: true },
        { group: "dev", clusters: "*" },
      ],
    }),
    "DASHBOARD_ACCESS",
  );
  assert.equal(resolveViewer(map, ["sre"]).allowsLogs(CLUSTER, "shop"), true);
  assert.equal(resolveViewer(map, ["dev"]).allowsLogs(CLUSTER, "shop"), false);
  assert.throws(
    () =>
      parseViewerAccessMap(
        JSON.stringify({ groups: [{ group: "x", clusters: "*", logs: "yes" }] }),
        "DASHBOARD_ACCESS",
      ),
    /groups\[0\]\.logs: expected true or false/,
  );
});
