/**
 * A silent API server (issue #25 item 1): whatever stage the server stops at — the name never resolves, SYNs
 * are dropped, the TLS handshake gets no answer, the request no headers, the body stops half-way — the status's
 * reads end at its deadline as "not read in time", on the HTTP/2 and the HTTP/1.1 paths (undici) and on plain
 * http:// (Node's agent). Before, a request waiting for a connection that never completed could not be aborted:
 * over HTTP/2 the read never settled, over HTTP/1.1 it settled only when undici's 10 s connect timeout fired.
 * The per-request timeout is left at its 10 s default, so what ends the reads is the deadline.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SILENT_STAGES, type SilentStage, stallConnector, startStallServer } from "../../bench/stall-server.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { parseManifest } from "../../shared/manifest/manifest.ts";

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
spec:
  selector:
    matchLabels:
      app: api
`;
const BUDGET_MS = 700;
/** Settling is a few timers and callbacks after the deadline; a loaded 2-core machine gets slack. */
const SLACK_MS = 1_500;

const paths: { name: string; http2: boolean; secure: boolean; stages: readonly SilentStage[] }[] = [
  { name: "HTTP/2", http2: true, secure: true, stages: SILENT_STAGES },
  { name: "HTTP/1.1 (DISABLE_HTTP2)", http2: false, secure: true, stages: SILENT_STAGES },
  { name: "plain http:// (kubectl proxy)", http2: false, secure: false, stages: ["dns", "connect", "headers", "body"] },
];

for (const path of paths) {
  describe(`a silent API server, ${path.name}: the deadline ends the status at every stage`, () => {
    for (const stage of path.stages) {
      test(`silent at ${stage}: every read is "not read in time" by the deadline`, async () => {
        const stall = await startStallServer(stage, { secure: path.secure });
        const kube = createKubeReader({
          connector: stallConnector(stall),
          http2: path.http2,
          lookup: stall.lookup,
        });
        try {
          const started = Date.now();
          const result = await kube.read({
            cluster: "silent",
            namespace: "shop",
            objects: parseManifest(MANIFEST).objects,
            deadline: started + BUDGET_MS,
          });
          const took = Date.now() - started;
          assert.ok(took < BUDGET_MS + SLACK_MS, `settled ${took - BUDGET_MS} ms after the deadline`);
          assert.deepEqual(
            result.resources.map((resource) => [resource.object.kind, resource.outcome]),
            [
              ["ConfigMap", "not-read-in-time"],
              ["Deployment", "not-read-in-time"],
            ],
          );
          for (const resource of result.resources) assert.match(resource.message ?? "", /^not read in time/);
          if (stage === "headers" || stage === "body") assert.ok(stall.requests >= 2, "the requests reached it");
          assert.equal(kube.stats("silent").inFlight, 0, "every slot was given back");
        } finally {
          await kube.close();
          await stall.close();
        }
      });
    }
  });
}
