/**
 * A cluster whose API server accepts TCP and never completes the TLS handshake (issue #25 item 1), through the
 * product's two callers of the status engine, on HTTP/2 and on HTTP/1.1: the API's status route answers its
 * partial 200 ("not read in time") inside the Lambda's budget instead of middy's 500 at the timeout, and an
 * audit worker's batch ends by its deadline with an Unknown snapshot instead of holding the batch.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ATTACK_RELEASE } from "../../bench/attack-fixtures.ts";
import { type StallServer, stallConnector, startStallServer } from "../../bench/stall-server.ts";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { auditRuntimeFromEnv } from "../../functions/audit/deps.ts";
import { createWorkerHandler } from "../../functions/audit/worker.ts";
import { sqsRecordFrom } from "../../local/queue/lambda-event.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { bodyText, httpApiEvent, lambdaContext, testApiHandler } from "./support.ts";

const BUDGET_MS = 2_000;
const SLACK_MS = 1_500;

const release = ATTACK_RELEASE;

let stall: StallServer;
before(async () => {
  stall = await startStallServer("tls");
});
after(async () => {
  await stall.close();
});

for (const http2 of [true, false]) {
  describe(`a cluster silent during the TLS handshake, ${http2 ? "HTTP/2" : "HTTP/1.1"}`, () => {
    test("the status route answers 200 'not read in time' inside the Lambda's budget", async () => {
      const store = new MemoryReleaseStore();
      await store.putRevision("silent", release);
      const connector = stallConnector(stall);
      const kube = createKubeReader({ connector, http2 });
      const handler = testApiHandler({
        store,
        clusters: connector,
        kube,
        clock: kube.clock,
        settings: apiSettingsFromEnv({ STATUS_DEADLINE_MARGIN_MS: "500" }),
      });
      try {
        const started = Date.now();
        const answer = await handler(
          httpApiEvent("GET", "/clusters/silent/namespaces/shop/releases/api/status"),
          lambdaContext(BUDGET_MS),
        );
        const took = Date.now() - started;
        assert.equal(answer.statusCode, 200, bodyText(answer));
        assert.ok(took < BUDGET_MS, `answered in ${took} ms, past the ${BUDGET_MS} ms budget`);
        assert.match(bodyText(answer), /not read in time/);
      } finally {
        await kube.close();
      }
    });

    test("an audit worker's batch ends by its deadline, the release Unknown", async () => {
      const store = new MemoryReleaseStore();
      await store.putRevision("silent", release);
      const history = memoryHistoryStores();
      const env = {
        CLUSTERS: JSON.stringify([{ name: "silent", region: "eu-west-1" }]),
        AUDIT_DEADLINE_MARGIN_MS: "500",
        AWS_REGION: "eu-west-1",
        POWERTOOLS_METRICS_DISABLED: "true",
        ...(http2 ? {} : { DISABLE_HTTP2: "1" }),
      };
      const runtime = auditRuntimeFromEnv(
        env,
        {},
        { store, historyStores: history, clusters: stallConnector(stall), logger: silentLogger },
      );
      try {
        await history.auditRuns.startRun("20261203T100000Z", new Date().toISOString());
        const message = {
          v: 1,
          runId: "20261203T100000Z",
          part: "silent-0",
          cluster: "silent",
          releases: [{ namespace: "shop", name: "api", revision: 1 }],
        };
        const event = {
          Records: [
            sqsRecordFrom(
              { MessageId: "m-1", ReceiptHandle: "r-1", Body: JSON.stringify(message), Attributes: {} },
              "arn:aws:sqs:eu-west-1:000000000000:audit",
              "eu-west-1",
            ),
          ],
        };
        const started = Date.now();
        const result = await createWorkerHandler(runtime)(event, lambdaContext(BUDGET_MS));
        const took = Date.now() - started;
        assert.ok(took < BUDGET_MS + SLACK_MS, `the batch took ${took} ms`);
        assert.deepEqual(result.batchItemFailures, []);
        const latest = await history.snapshots.latest({ cluster: "silent", namespace: "shop", name: "api" });
        assert.ok(latest, "a snapshot was recorded");
        assert.notEqual(latest.health.overall, "Current");
      } finally {
        await runtime.close();
      }
    });
  });
}
