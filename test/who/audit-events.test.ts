import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  type AttributionSubject,
  type AuditIdentity,
  forAudience,
  type RevisionSubject,
} from "../../shared/who/attribution.ts";
import { auditEventFromJson, auditEventFromRow, identityOf } from "../../shared/who/audit-events.ts";
import { createCloudWatchAuditLogLookup } from "../../shared/who/audit-log-lookup.ts";
import { managerOf, resourceOfKind } from "../../shared/who/audit-match.ts";
import { MAX_ROWS, planQueries, splitPlan } from "../../shared/who/audit-query.ts";

// The pure parts of the lookup: reading an audit event and its identity, naming the resource of a kind, and
// planning the queries of a batch.
describe("identity", () => {
  test("an assumed role: its session name (the e-mail IAM Identity Center puts there), role, account, ARN", () => {
    const arn = "arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Admin_0123/alice@example.com";
    assert.deepEqual(identityOf({ username: arn, arn, sessionName: "alice@example.com" }), {
      type: "assumed-role",
      name: "alice@example.com",
      role: "AWSReservedSSO_Admin_0123",
      accountId: "123456789012",
      arn,
    });
    // An access entry's custom username: the ARN in user.extra still says who; no sessionName: the ARN's.
    const ci = "arn:aws:sts::123456789012:assumed-role/ci-deployer/build-4711";
    assert.equal(identityOf({ username: "ci:build-4711", arn: ci }).name, "build-4711");
  });

  test("an IAM user (with a path); a Kubernetes identity not mapped from IAM", () => {
    const arn = "arn:aws:iam::123456789012:user/ops/bob";
    assert.deepEqual(identityOf({ username: arn, arn, sessionName: "" }), {
      type: "iam-user",
      name: "bob",
      accountId: "123456789012",
      arn,
    });
    assert.deepEqual(identityOf({ username: "system:serviceaccount:argocd:argocd-application-controller" }), {
      type: "kubernetes",
      name: "system:serviceaccount:argocd:argocd-application-controller",
    });
  });

  test("a username that is an ARN neither pattern reads, or holds an account id: no ARN or account shown publicly", () => {
    const role = "arn:aws:iam::123456789012:role/platform-admin";
    const kept = identityOf({ username: role });
    assert.deepEqual(kept, { type: "kubernetes", name: role, accountId: "123456789012", arn: role });
    const evidence = (identity: AuditIdentity, userAgent?: string) =>
      forAudience({ identity, verb: "patch", at: "", auditId: "a", ...(userAgent ? { userAgent } : {}) }, "public");
    assert.deepEqual(evidence(kept).identity, { type: "kubernetes", name: "role/platform-admin" });
    assert.deepEqual(forAudience({ identity: kept, verb: "patch", at: "", auditId: "a" }, "iam").identity, kept);
    const federated = "arn:aws:sts::123456789012:federated-user/carol";
    assert.equal(identityOf({ username: "carol", arn: federated }).arn, federated, "kept for the IAM audience");
    // aws-auth's `{{AccountID}}` template; a client's User-Agent naming its role.
    const shown = evidence(identityOf({ username: "admin:123456789012:dave" }), `deployer/1.0 (${role})`);
    assert.equal(shown.identity.name, "admin:<account>:dave");
    assert.doesNotMatch(JSON.stringify(shown), /123456789012|arn:/);
  });

  test("control characters and bidirectional overrides are stripped, lengths bounded; markup stays data", () => {
    const name = identityOf({ username: "eve\u001b[2J\r\n\u202Eevil<script>alert(1)</script>" }).name;
    assert.equal(name, "eve[2Jevil<script>alert(1)</script>", "no ESC, CR, LF or RLO left; escaping is the display's");
    assert.equal(identityOf({ username: "x".repeat(5000) }).name.length, 256);
    assert.equal(identityOf({ username: "\u0000\u0007" }).name, "(unknown)");
    const arn = "arn:aws:sts::123456789012:assumed-role/r/s";
    assert.equal(identityOf({ arn, sessionName: "mallory\u0000@example.com" }).name, "mallory@example.com");
  });
});

describe("reading an audit event", () => {
  const event = {
    auditID: "a1",
    verb: "patch",
    requestURI: "/api/v1/namespaces/shop/configmaps/web-config?fieldManager=kubectl-patch",
    user: { username: "bob", extra: { arn: ["arn:aws:iam::123456789012:user/bob"], sessionName: [""] } },
    sourceIPs: ["203.0.113.7", "127.0.0.1"],
    userAgent: "kubectl/v1.35.0 (linux/amd64) kubernetes/abcdef",
    objectRef: { resource: "configmaps", namespace: "shop", name: "web-config", apiVersion: "v1" },
    responseStatus: { code: 200 },
    requestReceivedTimestamp: "2026-12-02T15:10:05.123456Z",
    stageTimestamp: "2026-12-02T15:10:05.200000Z",
  };

  test("a whole event and an Insights row read the same", () => {
    const fromJson = auditEventFromJson(JSON.stringify(event));
    const row = [
      ["auditID", "a1"],
      ["verb", "patch"],
      ["requestURI", event.requestURI],
      ["user.username", "bob"],
      ["user.extra.arn.0", "arn:aws:iam::123456789012:user/bob"],
      ["user.extra.sessionName.0", ""],
      ["sourceIPs.0", "203.0.113.7"],
      ["userAgent", event.userAgent],
      ["objectRef.resource", "configmaps"],
      ["objectRef.namespace", "shop"],
      ["objectRef.name", "web-config"],
      ["responseStatus.code", "200"],
      ["requestReceivedTimestamp", event.requestReceivedTimestamp],
      ["stageTimestamp", event.stageTimestamp],
      ["@ptr", "x"],
    ].map(([field, value]) => ({ field, value }));
    const fromRow = auditEventFromRow(row);
    assert.deepEqual(fromRow, { ...fromJson, sessionName: "" });
    assert.equal(fromRow?.receivedAt, "2026-12-02T15:10:05.123Z");
    assert.equal(fromRow?.sourceIp, "203.0.113.7");
    assert.equal(fromRow?.code, 200);
  });

  test("a big event whose timestamps Insights did not discover (past its first 200 fields): the log event's time", () => {
    const row = [
      ["@timestamp", "2026-12-02 15:10:05.200"],
      ["auditID", "a2"],
      ["verb", "patch"],
      ["requestURI", "/apis/apps/v1/namespaces/shop/deployments/web?fieldManager=kubectl-edit"],
    ].map(([field, value]) => ({ field, value }));
    const event = auditEventFromRow(row);
    assert.equal(event?.receivedAt, "2026-12-02T15:10:05.200Z");
    assert.equal(event?.completedMs, Date.parse("2026-12-02T15:10:05.200Z"));
  });

  test("not an audit event (no id, no time, not JSON): nothing", () => {
    assert.equal(auditEventFromJson("not json"), undefined);
    assert.equal(auditEventFromJson(JSON.stringify({ ...event, auditID: undefined })), undefined);
    assert.equal(auditEventFromJson(JSON.stringify({ ...event, requestReceivedTimestamp: "yesterday" })), undefined);
  });

  test("the field manager: fieldManager= in the URI, else the User-Agent's product (kube-apiserver's default)", () => {
    assert.equal(managerOf({ requestURI: "/api/v1/x?dryRun=All&fieldManager=helm", userAgent: "Helm/4.1.0" }), "helm");
    assert.equal(managerOf({ requestURI: "/api/v1/x", userAgent: "kubectl/v1.35.0 (linux/amd64)" }), "kubectl");
  });

  test("the resource of a kind", () => {
    const kinds = ["ConfigMap", "Ingress", "NetworkPolicy", "Endpoints", "Gateway", "StorageClass", "Deployment"];
    assert.deepEqual(kinds.map(resourceOfKind), [
      "configmaps",
      "ingresses",
      "networkpolicies",
      "endpoints",
      "gateways",
      "storageclasses",
      "deployments",
    ]);
  });
});

describe("planning the queries of a batch", () => {
  const at = (minutes: number) => new Date(Date.parse("2026-12-02T15:00:00Z") + minutes * 60_000).toISOString();
  const revision = (release: string, n: number, minutes: number): RevisionSubject => ({
    type: "revision",
    cluster: "c",
    namespace: "shop",
    release,
    revision: n,
    storageKind: "Secret",
    createdAt: at(minutes),
  });

  test("subjects close in time share a query; a day apart they do not; the window covers each subject", () => {
    const plans = planQueries([revision("web", 1, 0), revision("web", 2, 20), revision("web", 3, 24 * 60)]);
    assert.equal(plans.length, 2);
    assert.deepEqual(
      plans.map((p) => p.subjects.length),
      [2, 1],
    );
    assert.equal(plans[0].startTime, Date.parse(at(-2)) / 1000);
    assert.equal(plans[0].endTime, Date.parse(at(30)) / 1000);
    assert.match(plans[0].queryString, /objectRef\.name = "sh\.helm\.release\.v1\.web\.v1" or objectRef\.name = /);
  });

  test("a batch spread over hours: the gap widens until a few queries cover it, none scanning over a day", () => {
    const hourly = Array.from({ length: 30 }, (_, i) => revision("web", i + 1, i * 60));
    const plans = planQueries(hourly);
    assert.equal(plans.length, 2);
    for (const plan of plans) assert.ok(plan.endTime - plan.startTime <= 24 * 3600);
    assert.equal(planQueries(hourly, { targetQueries: 100 }).length, 30, "within the target: never widened");
    const daily = Array.from({ length: 10 }, (_, i) => revision("web", i + 1, i * 24 * 60));
    assert.equal(planQueries(daily).length, 10, "a day apart: a query each");
  });

  test("a query stays under Insights' length limit; names that would need escaping are never put in one", () => {
    const many: AttributionSubject[] = [];
    for (let i = 1; i <= 400; i++) many.push(revision(`release-with-a-long-name-${i % 10}`, i, 0));
    const plans = planQueries(many);
    assert.ok(plans.length >= 2 && plans.length <= 5, `plans: ${plans.length}`);
    for (const plan of plans) assert.ok(plan.queryString.length <= 10_000);
    assert.equal(
      plans.reduce((n, p) => n + p.subjects.length, 0),
      400,
    );
    assert.deepEqual(planQueries([revision('web" or verb = "get', 1, 0)]), []);
    assert.deepEqual(planQueries([{ ...revision("web", 1, 0), createdAt: "soon" }]), []);
  });

  test("a query that returned as many rows as Insights returns is asked again in halves", async () => {
    const plans = planQueries([revision("a", 1, 0), revision("b", 1, 0), revision("c", 1, 0)]);
    const halves = splitPlan(plans[0]);
    assert.deepEqual(
      halves?.map((p) => p.subjects.length),
      [2, 1],
    );
    assert.equal(splitPlan(halves?.[1] ?? plans[0]), undefined);
    // A stub client (no engine returns 10,000 rows on cue): the first query is full, the halves are not.
    const asked: string[] = [];
    const client = {
      async send(command: { constructor: { name: string }; input: { queryString?: string } }) {
        const operation = command.constructor.name;
        if (operation === "StartQueryCommand") {
          asked.push(command.input.queryString ?? "");
          return { queryId: String(asked.length) };
        }
        const full = asked.length === 1;
        return { status: "Complete", results: full ? Array.from({ length: MAX_ROWS }, () => []) : [] };
      },
    };
    const lookup = createCloudWatchAuditLogLookup({
      registry: [{ name: "c", region: "us-east-1" }],
      logsClientFactory: () => client,
      pollMs: 1,
      checkLogging: false,
    });
    const result = await lookup.lookup("c", [revision("a", 1, 0), revision("b", 1, 0), revision("c", 1, 0)]);
    assert.equal(result.outcome === "searched" && result.queries, 3);
  });
});
