/**
 * Revisions brought in by the import (shared/usecases/import.ts: POST .../releases/import, which
 * `cli push` calls) are enqueued for attribution as the sync's are (docs/who.md): each revision stored new, with its
 * storage kind and creationTimestamp, once; an enqueue failure is logged, never the import's; the API route enqueues
 * only with an attribution store, which it has only with WHO_LOOKUP on (functions/api/deps.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { silentLogger } from "../../shared/ports.ts";
import { encodeHelmConfigMap, encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import {
  bodyText,
  httpApiEvent,
  lambdaContext,
  RecordingLogger,
  RecordingMetrics,
  testApiHandler,
} from "../api/support.ts";
import { makeRelease } from "../store/fixtures.ts";
import { STORE_CLOCK } from "./support.ts";

const CREATED = "2026-12-03T09:59:58Z";
const created = <T extends { metadata: Record<string, unknown> }>(object: T): T => ({
  ...object,
  metadata: { ...object.metadata, creationTimestamp: CREATED },
});
const list = (items: unknown[]) => ({ apiVersion: "v1", kind: "List", items });
const document = list([
  created(encodeHelmSecret(makeRelease({ name: "web", namespace: "shop", version: 1, status: "superseded" }))),
  created(encodeHelmSecret(makeRelease({ name: "web", namespace: "shop", version: 2 }))),
  created(encodeHelmConfigMap(makeRelease({ name: "legacy", namespace: "ops", version: 4 }))),
]);
const NOW = new Date("2026-12-04T10:00:00Z");

test("the import enqueues each revision it stores new, with its storage kind and creation time, once", async () => {
  const store = new MemoryReleaseStore();
  const attributions = new MemoryAttributionStore({ now: () => NOW });
  const enqueued: string[] = [];
  const counting = Object.assign(Object.create(attributions), {
    enqueue: (subjects: Parameters<typeof attributions.enqueue>[0], now: Date) => {
      enqueued.push(...subjects.map((s) => (s.type === "revision" ? `${s.release}.v${s.revision}` : s.name)));
      return attributions.enqueue(subjects, now);
    },
  });
  const deps = { store, clusters: "any" as const, attributions: counting, clock: { now: () => NOW } };
  const summary = await importReleases(deps, { cluster: "prod", document });
  assert.equal(summary.imported, 3);
  const web = await attributions.forRelease({ cluster: "prod", namespace: "shop", name: "web" });
  assert.deepEqual(web.map((a) => a.key).sort(), ["rev#shop#web#1", "rev#shop#web#2"]);
  for (const a of web) {
    assert.equal(a.state, "pending");
    assert.deepEqual(a.subject.type === "revision" && [a.subject.storageKind, a.subject.createdAt], [
      "Secret",
      CREATED,
    ]);
  }
  const [legacy] = await attributions.forRelease({ cluster: "prod", namespace: "ops", name: "legacy" });
  assert.equal(legacy.subject.type === "revision" && legacy.subject.storageKind, "ConfigMap");
  assert.deepEqual(enqueued.sort(), ["legacy.v4", "web.v1", "web.v2"]);

  // The same document again: every revision unchanged, nothing enqueued.
  assert.equal((await importReleases(deps, { cluster: "prod", document })).unchanged, 3);
  assert.deepEqual(enqueued.sort(), ["legacy.v4", "web.v1", "web.v2"]);
});

test("an enqueue that fails is logged, never the import's failure; without a store nothing is enqueued", async () => {
  const failing = new MemoryAttributionStore(STORE_CLOCK);
  failing.enqueue = async () => {
    throw Object.assign(new Error("down"), { name: "StoreUnavailableError" });
  };
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
  const summary = await importReleases(
    { store: new MemoryReleaseStore(), clusters: "any", attributions: failing, logger },
    { cluster: "prod", document },
  );
  assert.deepEqual([summary.imported, summary.failed, summary.complete], [3, 0, true]);
  assert.deepEqual(warnings, ["changes could not be enqueued for attribution"]);
  const without = await importReleases(
    { store: new MemoryReleaseStore(), clusters: "any" },
    { cluster: "prod", document },
  );
  assert.equal(without.imported, 3);
});

test("POST import enqueues with WHO_LOOKUP on (the API's attribution store), nothing with it off", async () => {
  const post = async (attributions: MemoryAttributionStore | undefined) => {
    const handler = testApiHandler({
      store: new MemoryReleaseStore(),
      clock: { now: () => NOW },
      ...(attributions ? { attributions } : {}),
    });
    const body = JSON.stringify(document);
    const result = await handler(
      httpApiEvent("POST", "/clusters/eu/releases/import", { body, headers: { "content-type": "application/json" } }),
      lambdaContext(),
    );
    assert.equal(result.statusCode, 200, bodyText(result));
  };
  const on = new MemoryAttributionStore({ now: () => NOW });
  await post(on);
  const web = await on.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.deepEqual(web.map((a) => a.key).sort(), ["rev#shop#web#1", "rev#shop#web#2"]);
  await post(undefined);

  // Which of the two the deployed API is, WHO_LOOKUP decides (no attribution store when off).
  const env = { AWS_REGION: "us-east-1", STORE_DRIVER: "memory", CLUSTERS: "[]", POWERTOOLS_METRICS_DISABLED: "true" };
  const telemetry = { logger: new RecordingLogger(), metrics: new RecordingMetrics() };
  assert.ok(apiDepsFromEnv({ ...env, WHO_LOOKUP: "on" }, { telemetry }).attributions);
  assert.equal(apiDepsFromEnv({ ...env, WHO_LOOKUP: "off" }, { telemetry }).attributions, undefined);
});
