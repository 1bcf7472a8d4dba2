/**
 * A log endpoint that never answers (a wedged kubelet: the simulator's `log-stall` annotation): the status still
 * answers by its deadline, says that excerpt was not read in time, and loses nothing else — the other crashed
 * container's excerpt, the cause chains, the verdict's citation, the events and every resource are there.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { crashingDeployment, manifestOf, releaseOnSimForFile } from "../support/release-on-sim.ts";

const CLUSTER = "stall";
/** The status's budget: the stalled read ends with it (the wave itself takes a fraction of it). */
const BUDGET_MS = 4_000;

const MANIFEST = manifestOf([
  crashingDeployment("stalled", { "sim.helm-status.dev/log-stall": "true" }),
  crashingDeployment("crash", { "sim.helm-status.dev/log": "panic: no database" }),
  { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop" }, spec: { ports: [{ port: 80 }] } },
]);

const { sim, kube: reader, store } = releaseOnSimForFile({ cluster: CLUSTER, manifest: MANIFEST });

test("a stalled log read ends at the status's deadline: that excerpt says why it is missing, nothing else is lost", async () => {
  const cluster = sim().cluster(CLUSTER);
  cluster.resetStats();
  const kube = reader();
  const report = await releaseStatus(
    { store, kube, logger: silentLogger },
    {
      cluster: CLUSTER,
      namespace: "shop",
      name: "app",
      drift: false,
      freshness: false,
      logExcerpts: true,
      deadline: kube.clock.now().getTime() + BUDGET_MS,
    },
  );
  const asked = Object.keys(cluster.stats().byPath).filter((path) => path.endsWith("/log"));
  assert.ok(
    asked.some((path) => path.includes("/pods/stalled-")),
    "the stalled pod's log was asked for",
  );

  const stalled = report.causes?.find((c) => c.name === "stalled");
  assert.deepEqual(stalled?.log, { container: "app", unread: "not read in time" });
  const crash = report.causes?.find((c) => c.name === "crash");
  assert.ok(crash?.log && "lines" in crash.log && crash.log.lines.includes("panic: no database"), "the other excerpt");

  // Everything the wave read is there: every resource, the verdict and its citation, the chains, the events.
  assert.equal(report.complete, true);
  assert.deepEqual(report.missing, []);
  assert.deepEqual(report.resources.map((r) => r.name).sort(), ["crash", "stalled", "web"]);
  assert.equal(report.health.overall, "Failed");
  assert.match(report.health.cause ?? "", /^Deployment (stalled|crash): container app CrashLoopBackOff, exit code 1$/);
  assert.ok(report.events?.items.some((e) => e.reason === "BackOff" && e.object.name.startsWith("stalled-")));
  const text = renderStatusText(report);
  assert.match(text, /\nLOG +NOT SHOWN\nstalled\/app +not read in time\n/);
  assert.match(text, /\nLOG crash\/app \(previous instance, last \d+ lines\)\n/);
});
