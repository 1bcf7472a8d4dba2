/**
 * Log excerpts through the API's real handler and API Gateway v2 events (issue #33): with LOG_EXCERPTS=on an IAM
 * caller's status carries the crashed container's last lines, the release's planted Secret value masked; on the
 * dashboard's mount a person without the `logs` grant gets none and is told why, one with it gets them; with the
 * setting off nobody does. The planted value never reaches any answer (text, JSON, YAML).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { NOT_GRANTED } from "../../shared/why/logs.ts";
import { crashingDeployment, manifestOf, releaseOnSimForFile } from "../support/release-on-sim.ts";
import { bodyText, httpApiEvent, lambdaContext, signedTokenEvent, testApiHandler } from "./support.ts";

const PLANTED = "r0ute-planted-pa55";
const CLUSTER = "logs-route";
const OBJECTS = [
  {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "db", namespace: "shop" },
    stringData: { password: PLANTED },
  },
  crashingDeployment("crash", {
    "sim.helm-status.dev/log-base64": Buffer.from(`login with ${PLANTED}\npanic: no database\n`).toString("base64"),
  }),
];
const MANIFEST = manifestOf(OBJECTS);
const PATH = `/clusters/${CLUSTER}/namespaces/shop/releases/app/status`;

const { sim, kube: reader, store } = releaseOnSimForFile({ cluster: CLUSTER, manifest: MANIFEST });

function handler(logExcerpts: "on" | "off") {
  const kube = reader();
  return testApiHandler({
    store,
    clusters: kube.connector,
    kube,
    clock: kube.clock,
    settings: apiSettingsFromEnv({ LOG_EXCERPTS: logExcerpts }),
    historyStores: memoryHistoryStores(),
    history: { auditIntervalSeconds: 300, retentionDays: 90 },
    dashboard: {
      auth: "jwt",
      groupsClaim: "cognito:groups",
      access: parseViewerAccessMap(
        JSON.stringify({
          groups: [
            { group: "sre", clusters: "*", logs: true },
            { group: "dev", clusters: "*" },
          ],
        }),
        "test",
      ),
      assetsDir: "/nonexistent",
      connectOrigins: [],
      oidc: { issuer: "https://idp.example", clientId: "app", scopes: "openid" },
    },
  });
}

type Log = { container: string; lines?: string[]; unread?: string } | undefined;
const logOf = (body: string): Log =>
  (JSON.parse(body) as { causes?: { name: string; log?: Log }[] }).causes?.find((c) => c.name === "crash")?.log;

test("LOG_EXCERPTS=on: an IAM caller gets the excerpt, masked; the planted value in no output", async () => {
  const api = handler("on");
  const answers: string[] = [];
  for (const output of ["json", "yaml", "table"]) {
    const response = await api(httpApiEvent("GET", `${PATH}?output=${output}`), lambdaContext());
    assert.equal(response.statusCode, 200, bodyText(response));
    answers.push(bodyText(response));
  }
  const log = logOf(answers[0]);
  assert.ok(log?.lines?.includes("panic: no database"), JSON.stringify(log));
  assert.ok(log?.lines?.includes("login with ****"));
  for (const answer of answers) assert.ok(!answer.includes(PLANTED), "the planted Secret value never leaves");
});

test("on the dashboard's mount: without the logs grant no excerpt and why; with it the excerpt", async () => {
  const api = handler("on");
  const as = async (group: string) => {
    const event = await signedTokenEvent("GET", `/dashboard/api${PATH}?output=json`, { "cognito:groups": [group] });
    const response = await api(event, lambdaContext());
    assert.equal(response.statusCode, 200, bodyText(response));
    assert.ok(!bodyText(response).includes(PLANTED));
    return logOf(bodyText(response));
  };
  assert.deepEqual(await as("dev"), { container: "app", unread: NOT_GRANTED });
  assert.ok((await as("sre"))?.lines?.includes("panic: no database"));
});

test("LOG_EXCERPTS off (the default): no log read for anyone, nothing said", async () => {
  const cluster = sim().cluster(CLUSTER);
  cluster.resetStats();
  const response = await handler("off")(httpApiEvent("GET", `${PATH}?output=json`), lambdaContext());
  assert.equal(response.statusCode, 200);
  assert.equal(logOf(bodyText(response)), undefined);
  assert.ok(!Object.keys(cluster.stats().byPath).some((path) => path.endsWith("/log")));
});
