/**
 * History names who created each revision (issue #34, docs/who.md): JSON and YAML carry `who`, the table keeps
 * Helm's six columns byte for byte and gains WHO only behind `--who`; the account id and ARN only for the
 * IAM-signed API's JSON; an identity is data (markup and control characters shown as text).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Release } from "../../shared/release/model.ts";
import { renderStructured } from "../../shared/render/index.ts";
import { helmHistoryElements, renderHelmHistory } from "../../shared/render/tables/release-tables.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseHistory } from "../../shared/usecases/history.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { ACCOUNT, ALICE, found, HOSTILE, revisionSubject, STORE_CLOCK, unsettled, webRevision } from "./support.ts";

const key = { cluster: "demo-us", namespace: "shop", name: "web" };

/** The drift tests' web revision, with no manifest and a value (a password) that history never shows. */
function revision(version: number, status: string): Release {
  return { ...webRevision(version, status), config: { password: "never" }, manifest: "" };
}

async function stores() {
  const store = new MemoryReleaseStore();
  for (const [v, s] of [
    [1, "superseded"],
    [2, "superseded"],
    [3, "superseded"],
    [4, "deployed"],
  ] as const)
    await store.putRevision("demo-us", revision(v, s));
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  await attributions.settle([
    found(revisionSubject("demo-us", "shop", "web", 1), ALICE),
    found(revisionSubject("demo-us", "shop", "web", 2), HOSTILE),
    unsettled(revisionSubject("demo-us", "shop", "web", 3), "pending"),
    // Another release's revision 4, same number: never shown for web.
    found(revisionSubject("demo-us", "shop", "webx", 4), ALICE),
  ]);
  return { store, attributions };
}

test("history gains who per revision: public drops the account id and ARN, iam keeps them", async () => {
  const { store, attributions } = await stores();
  const page = await releaseHistory({ store, clusters: "any", attributions }, key);
  const byRevision = new Map(page.items.map((item) => [item.version, item.who]));
  assert.deepEqual(byRevision.get(1), {
    state: "found",
    name: "alice@example.com",
    type: "assumed-role",
    role: "AWSReservedSSO_Admin_abc",
    verb: "create",
    at: "2026-12-02T15:30:00Z",
    userAgent: "Helm/4.1.0",
    sourceIp: "203.0.113.7",
  });
  assert.deepEqual(byRevision.get(3), { state: "pending", note: "pending" });
  assert.equal(byRevision.get(4), undefined, "nothing kept for revision 4 of web: no who");
  const json = renderStructured(helmHistoryElements(page.items), "json");
  assert.doesNotMatch(json, new RegExp(`${ACCOUNT}|arn:aws`), "no account id or ARN in a public answer");
  assert.doesNotMatch(json, /never/, "the values are still dropped");

  const iam = await releaseHistory({ store, clusters: "any", attributions }, key, { audience: "iam" });
  const first = iam.items.find((item) => item.version === 1)?.who;
  assert.equal(first?.state === "found" && first.arn, ALICE.arn);
  assert.equal(first?.state === "found" && first.accountId, ACCOUNT);
});

test("the table is Helm's byte for byte without --who; with it a WHO column, controls defused", async () => {
  const { store, attributions } = await stores();
  const without = await releaseHistory({ store, clusters: "any" }, key);
  const withWho = await releaseHistory({ store, clusters: "any", attributions }, key);
  assert.equal(renderHelmHistory(withWho.items), renderHelmHistory(without.items), "no flag: Helm's table");
  const table = renderHelmHistory(withWho.items, { who: true });
  const lines = table
    .trimEnd()
    .split("\n")
    .map((line) => line.trimEnd());
  assert.equal(lines.length, 5, "one line per revision: a newline in a session name does not add one");
  assert.match(lines[0], /\tDESCRIPTION\t+WHO$/);
  assert.match(lines[1], /\talice@example\.com \(AWSReservedSSO_Admin_abc\)$/);
  assert.match(lines[2], /\t<img src=x onerror=alert\(1\)>\^\[\[31m\.\.\.$/, "ESC shown as ^[, cut at the newline");
  assert.match(lines[3], /\t\(pending\)$/);
  assert.match(lines[4], /\t-$/);
  assert.ok(!table.includes("\u001b"));
  assert.doesNotMatch(table, /arn:aws|111122223333/);
  const yaml = renderStructured(helmHistoryElements(withWho.items), "yaml");
  assert.match(yaml, /name: .*<img src=x onerror=alert\(1\)>/, "YAML carries the name as a quoted string");
  assert.ok(!yaml.includes("\u001b"), "YAML escapes the control characters");
});

test("logging off is said once; a store that fails leaves history as Helm's", async () => {
  const { store, attributions } = await stores();
  await attributions.setClusterLogging("demo-us", {
    enabled: false,
    checkedAt: "2026-12-02T15:00:00Z",
    hint: 'aws eks update-cluster-config --name demo-us --logging \'{"clusterLogging":[{"types":["audit"],"enabled":true}]}\'',
  });
  const page = await releaseHistory({ store, clusters: "any", attributions }, key);
  assert.match(
    page.auditLogging ?? "",
    /^audit logs are off for demo-us: aws eks update-cluster-config --name demo-us/,
  );
  const table = renderHelmHistory(page.items, { who: true, auditLogging: page.auditLogging });
  assert.equal(table.match(/audit logs are off/g)?.length, 1);
  assert.doesNotMatch(renderHelmHistory(page.items, { auditLogging: page.auditLogging }), /audit logs/);

  const broken = new MemoryAttributionStore(STORE_CLOCK);
  broken.forRelease = async () => {
    throw new Error("ProvisionedThroughputExceededException");
  };
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
  const plain = await releaseHistory({ store, clusters: "any", attributions: broken, logger }, key);
  assert.equal(plain.items.length, 4);
  assert.ok(plain.items.every((item) => item.who === undefined));
  assert.deepEqual(warnings, ["attributions not read"]);
});
