/** Attributions as the workers settle them, for the tests of what they show (docs/who.md). */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SimCluster, SimCredentials } from "../../local/sim/index.ts";
import type { Clock } from "../../shared/ports.ts";
import type { Release } from "../../shared/release/model.ts";
import {
  type Attribution,
  type AttributionSubject,
  type AuditIdentity,
  attributionKey,
  type RevisionSubject,
} from "../../shared/who/attribution.ts";
import { call } from "../sim/helpers.ts";

export const ACCOUNT = "111122223333";

/**
 * The memory attribution store's clock in tests whose records carry fixed 2026 times: a settled attribution expires
 * 400 days after it was enqueued (docs/who.md "Retention"), so on the system clock these tests would lose their
 * records from 2028 on. Earlier than every fixed time used, it never expires one.
 */
export const STORE_CLOCK: Clock = { now: () => new Date("2026-01-01T00:00:00Z") };
export const ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/AWSReservedSSO_Admin_abc/alice@example.com`;

/** Alice through IAM Identity Center: her e-mail as the session name, the role and the ARN the lookup found. */
export const ALICE: AuditIdentity = {
  name: "alice@example.com",
  type: "assumed-role",
  role: "AWSReservedSSO_Admin_abc",
  accountId: ACCOUNT,
  arn: ARN,
};

/** A session name carrying markup and control characters: shown as text everywhere, never run or interpreted. */
export const HOSTILE: AuditIdentity = {
  name: "<img src=x onerror=alert(1)>\u001b[31m\nbob",
  type: "assumed-role",
  role: "ci",
  accountId: ACCOUNT,
  arn: `arn:aws:sts::${ACCOUNT}:assumed-role/ci/x`,
};

export function found(subject: AttributionSubject, identity: AuditIdentity, at = "2026-12-02T15:30:00Z"): Attribution {
  return {
    cluster: subject.cluster,
    key: attributionKey(subject),
    subject,
    state: "found",
    evidence: {
      identity,
      verb: subject.type === "revision" ? "create" : "patch",
      at,
      userAgent: subject.type === "revision" ? "Helm/4.1.0" : "kubectl/v1.35.0 (linux/amd64)",
      sourceIp: "203.0.113.7",
      auditId: `audit-${attributionKey(subject)}`,
    },
    attempts: 1,
    enqueuedAt: at,
  };
}

export function unsettled(subject: AttributionSubject, state: Attribution["state"], reason?: string): Attribution {
  return {
    cluster: subject.cluster,
    key: attributionKey(subject),
    subject,
    state,
    attempts: 1,
    enqueuedAt: "2026-12-02T15:30:00Z",
    ...(reason ? { reason } : {}),
  };
}

/** A revision stored as a Secret, written at `createdAt` (what the who lookup searches the audit log around). */
export function revisionSubject(
  cluster: string,
  namespace: string,
  release: string,
  revision: number,
  createdAt = "2026-12-02T15:00:00Z",
): RevisionSubject {
  return { type: "revision", cluster, namespace, release, revision, storageKind: "Secret", createdAt };
}

/** The release the drift tests read: one ConfigMap `web-settings` in shop, LOG_LEVEL info. */
export const SETTINGS = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "web-settings", namespace: "shop" },
  data: { LOG_LEVEL: "info" },
};

export function webRevision(version: number, status: string): Release {
  return {
    name: "web",
    namespace: "shop",
    version,
    info: { status, description: `Upgrade ${version}`, last_deployed: `2026-12-02T15:0${version}:00Z` },
    chart: { metadata: { name: "web", version: "1.0.0", appVersion: "1" } },
    manifest: `---\n# Source: web/templates/cm.yaml\n${JSON.stringify(SETTINGS)}\n`,
    hooks: [],
  } as Release;
}

/**
 * Helm creates shop/web-settings on the simulated cluster, then `kubectl patch` (manager kubectl-patch) sets
 * LOG_LEVEL to debug `patchAfterMs` later (the simulator's clock is the caller's: `advance` moves it).
 */
export async function writeDrift(cluster: SimCluster, advance: (ms: number) => void, patchAfterMs = 30 * 60_000) {
  const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } };
  const ns = await call(cluster, "/api/v1/namespaces", { method: "POST", body: namespace });
  assert.ok(ns.status === 201 || ns.status === 409, ns.text);
  const base = "/api/v1/namespaces/shop/configmaps";
  const created = await call(cluster, `${base}?fieldManager=helm`, { method: "POST", body: SETTINGS });
  assert.equal(created.status, 201, created.text);
  advance(patchAfterMs);
  const patched = await call(cluster, `${base}/web-settings?fieldManager=kubectl-patch`, {
    method: "PATCH",
    body: { data: { LOG_LEVEL: "debug" } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(patched.status, 200, patched.text);
}

/** The chart the who tests deploy with real helm: one ConfigMap web-config, LOG_LEVEL the value `level` (warn). */
const WEB_CHART: Record<string, string> = {
  "Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
  "templates/config.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  LOG_LEVEL: {{ .Values.level | quote }}\n",
  "values.yaml": "level: warn\n",
};

/** kubectl's arguments for the second identity's change: a patch of that chart's ConfigMap, LOG_LEVEL debug. */
export const PATCH_WEB_CONFIG = [
  "-n",
  "shop",
  "patch",
  "configmap",
  "web-config",
  "-p",
  '{"data":{"LOG_LEVEL":"debug"}}',
];

/**
 * Helm as one identity, kubectl as another: that chart written to `home`/web, and a kubeconfig of `cluster` for each
 * identity in the test's temp `home` (mode 0600; the test removes `home`).
 */
export async function chartAndIdentities(
  home: string,
  cluster: SimCluster,
  identities: { alice: SimCredentials; bob: SimCredentials },
): Promise<{ chart: string; asAlice: string; asBob: string }> {
  const chart = join(home, "web");
  await mkdir(join(chart, "templates"), { recursive: true });
  for (const [name, text] of Object.entries(WEB_CHART)) await writeFile(join(chart, name), text);
  const asAlice = join(home, "alice.kubeconfig");
  const asBob = join(home, "bob.kubeconfig");
  await writeFile(asAlice, cluster.kubeconfig({ credentials: identities.alice }), { mode: 0o600 });
  await writeFile(asBob, cluster.kubeconfig({ credentials: identities.bob }), { mode: 0o600 });
  return { chart, asAlice, asBob };
}
