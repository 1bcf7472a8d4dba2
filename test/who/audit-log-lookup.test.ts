import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type SimCredentials, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import type { AttributionSubject, LookupResult, RevisionSubject, WriteSubject } from "../../shared/who/attribution.ts";
import { attributionKey } from "../../shared/who/attribution.ts";
import {
  type CloudWatchAuditLogLookupOptions,
  createCloudWatchAuditLogLookup,
} from "../../shared/who/audit-log-lookup.ts";
import { toolRunner } from "../drift/chart.ts";
import { call } from "../sim/helpers.ts";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { chartAndIdentities, PATCH_WEB_CONFIG, revisionSubject } from "./support.ts";

// The lookup against the simulated EKS's CloudWatch Logs: real helm and kubectl acting as two IAM identities,
// and audit events seeded with recordAudit for what real tools cannot do on cue (a forged User-Agent, two writes
// in one second, a hundred revisions).
const START = Date.parse("2026-12-02T15:10:00.400Z");
let clock = START;
let sim: SimulatedEks;
let home: string;
let alice: SimCredentials;
let bob: SimCredentials;
let carol: SimCredentials;

before(async () => {
  sim = await startSimulatedEks({
    clusters: [{ name: "audited" }, { name: "quiet", auditLogging: false }, { name: "seeded" }, { name: "limits" }],
    now: () => new Date(clock),
    logs: { tps: 1000 },
  });
  const role = sim.iam.addRole(`arn:aws:iam::${sim.iam.account}:role/AWSReservedSSO_Admin_0123456789abcdef`);
  alice = sim.iam.issueSession(role, "alice@example.com", 3600);
  bob = sim.iam.addUser("bob").credentials;
  carol = sim.iam.addUser("carol").credentials;
  home = await mkdtemp(join(tmpdir(), "who-lookup-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

function lookupFor(options: Partial<CloudWatchAuditLogLookupOptions> = {}) {
  const registry: ClusterEntry[] = sim.registryEntries();
  return createCloudWatchAuditLogLookup({
    registry,
    connection: { endpoint: sim.logsEndpoint, credentials: sim.credentials },
    clock: { now: () => new Date(clock) },
    retry: { baseMs: 5, capMs: 20 },
    pollMs: 5,
    ...options,
  });
}

function searched(result: LookupResult) {
  assert.equal(result.outcome, "searched", JSON.stringify(result));
  return result as Extract<LookupResult, { outcome: "searched" }>;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** managedFields' time: RFC 3339 truncated to the second. */
const second = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

function revision(cluster: string, release: string, n: number, createdAt: number, namespace = "shop"): RevisionSubject {
  return revisionSubject(cluster, namespace, release, n, second(createdAt));
}

function write(cluster: string, name: string, manager: string, at: number, kind = "ConfigMap"): WriteSubject {
  return {
    type: "write",
    cluster,
    namespace: "shop",
    release: "web",
    apiVersion: "v1",
    kind,
    name,
    objectNamespace: "shop",
    manager,
    operation: "Update",
    at: second(at),
  };
}

describe("helm as one identity, kubectl as another", () => {
  test("the revisions name who ran helm, the patch names who ran kubectl; the User-Agent stays a claim", async (t) => {
    const [helm, kubectl] = [await helmPath(), await kubectlPath()];
    if (!helm || !kubectl) return t.skip("no helm/kubectl");
    const cluster = sim.cluster("audited");
    const { chart, asAlice, asBob } = await chartAndIdentities(home, cluster, { alice, bob });
    const helmAsAlice = toolRunner(home, asAlice);
    const kubectlAsBob = toolRunner(home, asBob);

    clock = START;
    await helmAsAlice(helm, ["install", "web", chart, "-n", "shop", "--create-namespace"]);
    clock = START + 60_000;
    await helmAsAlice(helm, ["upgrade", "web", chart, "-n", "shop", "--set", "level=info"]);
    clock = START + 120_000;
    await kubectlAsBob(kubectl, PATCH_WEB_CONFIG);
    const live = JSON.parse(
      await kubectlAsBob(kubectl, [
        "-n",
        "shop",
        "get",
        "configmap",
        "web-config",
        "-o",
        "json",
        "--show-managed-fields",
      ]),
    );
    const patchEntry = live.metadata.managedFields.find((f: { manager: string }) => f.manager === "kubectl-patch");
    assert.ok(patchEntry, "kubectl's patch has its managedFields entry");
    const secrets = JSON.parse(
      await kubectlAsBob(kubectl, ["-n", "shop", "get", "secrets", "-l", "owner=helm", "-o", "json"]),
    );
    const created = new Map<string, string>(
      secrets.items.map((s: { metadata: { name: string; creationTimestamp: string } }) => [
        s.metadata.name,
        s.metadata.creationTimestamp,
      ]),
    );

    const subjects: AttributionSubject[] = [
      { ...revision("audited", "web", 1, 0), createdAt: created.get("sh.helm.release.v1.web.v1") ?? "" },
      { ...revision("audited", "web", 2, 0), createdAt: created.get("sh.helm.release.v1.web.v2") ?? "" },
      { ...write("audited", "web-config", "kubectl-patch", 0), at: patchEntry.time },
    ];
    const result = searched(await lookupFor().lookup("audited", subjects));
    assert.equal(result.queries, 1, "three subjects within minutes: one query");
    const [v1, v2, patch] = subjects.map((s) => result.found.get(attributionKey(s)));
    for (const evidence of [v1, v2]) {
      assert.deepEqual(evidence?.identity, {
        type: "assumed-role",
        name: "alice@example.com",
        role: "AWSReservedSSO_Admin_0123456789abcdef",
        accountId: sim.iam.account,
        arn: `arn:aws:sts::${sim.iam.account}:assumed-role/AWSReservedSSO_Admin_0123456789abcdef/alice@example.com`,
      });
      assert.equal(evidence?.verb, "create");
      assert.match(evidence?.userAgent ?? "", /^Helm\//);
    }
    assert.equal(v1?.at, iso(START));
    assert.equal(v2?.at, iso(START + 60_000));
    assert.equal(patch?.identity.type, "iam-user");
    assert.equal(patch?.identity.name, "bob");
    assert.equal(patch?.verb, "patch");
    assert.match(patch?.userAgent ?? "", /^kubectl/);
    assert.equal(patch?.at, iso(START + 120_000));
  });

  test("a forged User-Agent is kept as the client's claim, never as the identity", async () => {
    const cluster = sim.cluster("seeded");
    clock = START + 10 * 60_000;
    const target = { apiVersion: "v1", kind: "Secret", name: "sh.helm.release.v1.api.v3", namespace: "shop" };
    cluster.recordAudit({ credentials: carol, verb: "create", target, userAgent: "Helm/4.1.0 (alice@example.com)" });
    const subject = revision("seeded", "api", 3, clock);
    const result = searched(await lookupFor().lookup("seeded", [subject]));
    const evidence = result.found.get(attributionKey(subject));
    assert.equal(evidence?.identity.name, "carol");
    assert.equal(evidence?.userAgent, "Helm/4.1.0 (alice@example.com)");
  });
});

describe("matching", () => {
  test("exact object: a similar name, a failed request and a dry run are never taken", async () => {
    const cluster = sim.cluster("seeded");
    clock = START + 20 * 60_000;
    const at = clock;
    const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", name, namespace: "shop" });
    cluster.recordAudit({
      credentials: carol,
      verb: "patch",
      target: configMap("web-config-2"),
      fieldManager: "kubectl-patch",
    });
    cluster.recordAudit({
      credentials: carol,
      verb: "patch",
      target: { ...configMap("web-config"), kind: "Secret" },
      fieldManager: "kubectl-patch",
    });
    cluster.apply([
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web-config", namespace: "shop" }, data: {} },
    ]);
    // A dry run and a refused patch by carol in the same second: both really logged by the API server.
    const patch = (query: string, token: string) =>
      call(cluster, `/api/v1/namespaces/shop/configmaps/web-config?fieldManager=kubectl-patch${query}`, {
        method: "PATCH",
        body: { data: { A: "1" } },
        headers: { "content-type": "application/merge-patch+json" },
        token,
      });
    assert.equal((await patch("&dryRun=All", cluster.token(carol))).status, 200);
    cluster.deny({ user: "carol", resource: "configmaps", verb: "patch" });
    const refused = await patch("", cluster.token(carol));
    assert.ok(refused.status >= 400, `refused: ${refused.status}`);
    const subject = write("seeded", "web-config", "kubectl-patch", at);
    const nothing = searched(await lookupFor().lookup("seeded", [subject]));
    assert.equal(nothing.found.size, 0, JSON.stringify([...nothing.found.values()]));
    cluster.recordAudit({
      credentials: bob,
      verb: "patch",
      target: configMap("web-config"),
      fieldManager: "kubectl-patch",
    });
    const result = searched(await lookupFor().lookup("seeded", [subject]));
    assert.equal(result.found.get(attributionKey(subject))?.identity.name, "bob");
  });

  test("two writes by one manager in one second: the last one completed, and how many others", async () => {
    const cluster = sim.cluster("seeded");
    const base = Date.parse("2026-12-02T15:40:00Z");
    const target = { apiVersion: "v1", kind: "ConfigMap", name: "twice", namespace: "shop" };
    clock = base + 100;
    cluster.recordAudit({ credentials: bob, verb: "patch", target, fieldManager: "kubectl-edit" });
    clock = base + 700;
    cluster.recordAudit({ credentials: carol, verb: "patch", target, fieldManager: "kubectl-edit" });
    clock = base + 1_300;
    cluster.recordAudit({ credentials: bob, verb: "patch", target, fieldManager: "kubectl-edit" });
    cluster.recordAudit({ credentials: bob, verb: "patch", target, fieldManager: "other-manager" });
    const subject = write("seeded", "twice", "kubectl-edit", base);
    const evidence = searched(await lookupFor().lookup("seeded", [subject])).found.get(attributionKey(subject));
    assert.equal(evidence?.identity.name, "carol");
    assert.equal(evidence?.sameSecondWrites, 1);
    assert.equal(evidence?.at, iso(base + 700));
  });

  test("a revision name created twice (uninstalled, installed again): the create nearest the revision's time", async () => {
    const cluster = sim.cluster("seeded");
    const target = { apiVersion: "v1", kind: "Secret", name: "sh.helm.release.v1.again.v1", namespace: "shop" };
    clock = START + 40 * 60_000;
    cluster.recordAudit({ credentials: bob, verb: "create", target });
    clock = START + 45 * 60_000;
    cluster.recordAudit({ credentials: carol, verb: "create", target });
    const subject = revision("seeded", "again", 1, clock);
    const evidence = searched(await lookupFor().lookup("seeded", [subject])).found.get(attributionKey(subject));
    assert.equal(evidence?.identity.name, "carol");
  });
});

describe("batching", () => {
  test("100 revisions of one cluster cost at most 5 queries", async () => {
    const cluster = sim.cluster("seeded");
    const subjects: RevisionSubject[] = [];
    const base = START + 2 * 60 * 60_000;
    for (let i = 1; i <= 100; i++) {
      clock = base + i * 30_000;
      const release = `app${i % 7}`;
      cluster.recordAudit({
        credentials: i % 2 ? bob : carol,
        verb: "create",
        target: { apiVersion: "v1", kind: "Secret", name: `sh.helm.release.v1.${release}.v${i}`, namespace: "shop" },
        userAgent: "Helm/4.1.0",
      });
      subjects.push(revision("seeded", release, i, clock));
    }
    const result = searched(await lookupFor().lookup("seeded", subjects));
    assert.equal(result.found.size, 100);
    assert.ok(result.queries <= 5, `queries: ${result.queries}`);
    assert.equal(result.queries, 1, "made within an hour: one query (docs/who.md)");
    assert.equal(result.found.get(attributionKey(subjects[0]))?.identity.name, "bob");
    assert.equal(result.found.get(attributionKey(subjects[1]))?.identity.name, "carol");
  });
});
