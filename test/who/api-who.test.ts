/**
 * What the API shows of who (issue #34, docs/who.md "What is shown to whom"): the IAM-signed JSON carries an
 * identity's account id and ARN; the dashboard's mount (a browser), the table and the MCP tools (an agent) never
 * do; `?who=true` adds the WHO column to the table, any other value is a 400 naming it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { bodyText, httpApiEvent, lambdaContext, testApiHandler } from "../api/support.ts";
import { makeRelease } from "../store/fixtures.ts";
import { ACCOUNT, ALICE, found, HOSTILE, revisionSubject, STORE_CLOCK } from "./support.ts";

const store = new MemoryReleaseStore();
await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop", version: 1, status: "superseded" }));
await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop", version: 2, status: "deployed" }));
const attributions = new MemoryAttributionStore(STORE_CLOCK);
await attributions.settle([
  found(revisionSubject("eu", "shop", "api", 1), HOSTILE),
  found(revisionSubject("eu", "shop", "api", 2), ALICE),
]);
const handler = testApiHandler({
  store,
  clock: { now: () => new Date("2026-12-02T16:00:00Z") },
  attributions,
  // Sign-in off (npm start's default): the mount answers as a browser, without a token.
  dashboard: {
    auth: "off",
    groupsClaim: "groups",
    access: parseViewerAccessMap("groups: []\n", "test"),
    assetsDir: "/nonexistent",
    connectOrigins: [],
  },
});
const HISTORY = "/clusters/eu/namespaces/shop/releases/api/history";
const LEAKS = new RegExp(`${ACCOUNT}|arn:aws`);

async function get(path: string) {
  const result = await handler(httpApiEvent("GET", path), lambdaContext());
  return { status: result.statusCode, text: bodyText(result) };
}

test("the IAM-signed JSON keeps the account id and ARN; the dashboard's mount and the table do not", async () => {
  const iam = await get(HISTORY);
  assert.equal(iam.status, 200, iam.text);
  const who = JSON.parse(iam.text).history[1].who;
  assert.equal(who.name, "alice@example.com");
  assert.equal(who.arn, ALICE.arn);
  assert.equal(who.accountId, ACCOUNT);

  const browser = await get(`/dashboard/api${HISTORY}`);
  assert.equal(browser.status, 200, browser.text);
  assert.equal(JSON.parse(browser.text).history[1].who.name, "alice@example.com");
  assert.doesNotMatch(browser.text, LEAKS);

  const yaml = await get(`/dashboard/api${HISTORY}?output=yaml`);
  assert.doesNotMatch(yaml.text, LEAKS);

  const table = await get(`${HISTORY}?output=table&who=true`);
  assert.equal(table.status, 200, table.text);
  assert.match(table.text, /\tWHO/);
  assert.match(table.text, /alice@example\.com \(AWSReservedSSO_Admin_abc\)/);
  assert.ok(!table.text.includes("\u001b"));
  assert.doesNotMatch(table.text, LEAKS);
  const helm = await get(`${HISTORY}?output=table`);
  assert.doesNotMatch(helm.text, /WHO|alice/, "without ?who=true: helm's table");
});

test("?who= takes true or false only", async () => {
  const bad = await get(`${HISTORY}?output=table&who=yes`);
  assert.equal(bad.status, 400);
  assert.match(bad.text, /who/);
});

test("the MCP history tool answers who, never an ARN, even to an IAM caller", async () => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "release_history", arguments: { cluster: "eu", namespace: "shop", name: "api" } },
  });
  const event = httpApiEvent("POST", "/mcp", {
    body,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  });
  const result = await handler(event, lambdaContext());
  const text = bodyText(result);
  assert.equal(result.statusCode, 200, text);
  assert.match(text, /alice@example\.com/);
  assert.doesNotMatch(text, LEAKS);
});
