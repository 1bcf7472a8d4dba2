import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  FilterLogEventsCommand,
  GetQueryResultsCommand,
  StartQueryCommand,
  StopQueryCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { DescribeClusterCommand, EKSClient } from "@aws-sdk/client-eks";
import { type SimCredentials, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { call } from "./helpers.ts";

const START = new Date("2026-12-02T15:10:00Z");
const LAG_MS = 60_000;
let clock = START;
let sim: SimulatedEks;
let alice: SimCredentials;
let bob: SimCredentials;
let logs: CloudWatchLogsClient;

// biome-ignore lint/suspicious/noExplicitAny: audit events are inspected field by field
type Json = any;

const configMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "web-config" },
  data: { LOG_LEVEL: "warn" },
};

before(async () => {
  sim = await startSimulatedEks({
    clusters: [{ name: "audited" }, { name: "quiet", auditLogging: false }, { name: "euro", region: "eu-west-1" }],
    now: () => clock,
    auditLogLagMs: LAG_MS,
    logs: { tps: 1000 },
  });
  alice = sim.iam.addUser("alice").credentials;
  const role = sim.iam.addRole(`arn:aws:iam::${sim.iam.account}:role/AWSReservedSSO_Admin_0123456789abcdef`);
  bob = sim.iam.issueSession(role, "bob@example.com", 3600);
  logs = new CloudWatchLogsClient({
    region: "us-east-1",
    endpoint: sim.logsEndpoint,
    credentials: sim.credentials,
    maxAttempts: 1,
  });
  const cluster = sim.cluster("audited");
  // Helm (as alice) creates the ConfigMap and its release Secret; kubectl (as bob, from another address) patches.
  const helm = { "user-agent": "Helm/4.1.0" };
  let reply = await call(cluster, "/api/v1/namespaces/default/configmaps?fieldManager=helm", {
    method: "POST",
    body: configMap,
    token: cluster.token(alice),
    headers: helm,
  });
  assert.equal(reply.status, 201, reply.text);
  reply = await call(cluster, "/api/v1/namespaces/default/secrets?fieldManager=helm", {
    method: "POST",
    body: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sh.helm.release.v1.web.v1" },
      data: { release: "eA==" },
    },
    token: cluster.token(alice),
    headers: helm,
  });
  assert.equal(reply.status, 201, reply.text);
  clock = new Date(START.getTime() + 5_000);
  reply = await call(cluster, "/api/v1/namespaces/default/configmaps/web-config?fieldManager=kubectl-patch", {
    method: "PATCH",
    body: { data: { LOG_LEVEL: "debug" } },
    token: cluster.token(bob),
    headers: {
      "content-type": "application/merge-patch+json",
      "user-agent": "kubectl/v1.35.0 (linux/amd64) kubernetes/abcdef",
      "x-forwarded-for": "203.0.113.7",
    },
  });
  assert.equal(reply.status, 200, reply.text);
  await call(cluster, "/api/v1/namespaces/default/events", { token: cluster.token(bob) });
  await call(cluster, "/api/v1/namespaces/default/pods", { token: cluster.token(bob) });
  await call(sim.cluster("quiet"), "/api/v1/namespaces/default/pods");
});
after(async () => {
  logs?.destroy();
  await sim?.stop();
});

describe("the audit log the simulated API server writes", () => {
  test("one event per request at EKS's policy levels, attributed to the token's IAM principal", () => {
    const events: Json[] = sim.cluster("audited").auditEvents();
    const resources = events.map((e) => `${e.verb} ${e.objectRef?.resource} ${e.level}`);
    assert.deepEqual(resources, [
      "create configmaps Metadata",
      "create secrets Metadata",
      "patch configmaps Metadata",
      "list pods Request",
    ]);
    const [createdCm, createdSecret, patched] = events;
    assert.equal(createdSecret.objectRef.name, "sh.helm.release.v1.web.v1");
    assert.equal(createdSecret.requestObject, undefined);
    assert.equal(createdCm.userAgent, "Helm/4.1.0");
    assert.equal(createdCm.user.username, `arn:aws:iam::${sim.iam.account}:user/alice`);
    assert.deepEqual(createdCm.user.extra.sessionName, [""]);
    assert.equal(createdCm.requestURI, "/api/v1/namespaces/default/configmaps?fieldManager=helm");
    assert.deepEqual(
      { ...patched, auditID: undefined },
      {
        kind: "Event",
        apiVersion: "audit.k8s.io/v1",
        level: "Metadata",
        auditID: undefined,
        stage: "ResponseComplete",
        requestURI: "/api/v1/namespaces/default/configmaps/web-config?fieldManager=kubectl-patch",
        verb: "patch",
        user: {
          username: `arn:aws:sts::${sim.iam.account}:assumed-role/AWSReservedSSO_Admin_0123456789abcdef/bob@example.com`,
          uid: `aws-iam-authenticator:${sim.iam.account}:AROAAWSRESERVEDSSOAD:bob@example.com`,
          groups: ["system:authenticated"],
          extra: {
            accessKeyId: [bob.accessKeyId],
            arn: [`arn:aws:sts::${sim.iam.account}:assumed-role/AWSReservedSSO_Admin_0123456789abcdef/bob@example.com`],
            canonicalArn: [`arn:aws:iam::${sim.iam.account}:role/AWSReservedSSO_Admin_0123456789abcdef`],
            principalId: ["AROAAWSRESERVEDSSOAD:bob@example.com"],
            sessionName: ["bob@example.com"],
          },
        },
        sourceIPs: ["203.0.113.7", "127.0.0.1"],
        userAgent: "kubectl/v1.35.0 (linux/amd64) kubernetes/abcdef",
        objectRef: { resource: "configmaps", namespace: "default", name: "web-config", apiVersion: "v1" },
        responseStatus: { metadata: {}, code: 200 },
        requestReceivedTimestamp: "2026-12-02T15:10:05.000000Z",
        stageTimestamp: "2026-12-02T15:10:05.000000Z",
        annotations: {
          "authorization.k8s.io/decision": "allow",
          "authorization.k8s.io/reason": "EKS Access Policy: allowed by AmazonEKSClusterAdminPolicy",
        },
      },
    );
  });

  test("writes of known groups carry request and response (RequestResponse); a denied one says forbid", async () => {
    const cluster = sim.cluster("audited");
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "web", image: "nginx:1.29" }] },
        },
      },
    };
    assert.equal(
      (await call(cluster, "/apis/apps/v1/namespaces/default/deployments", { method: "POST", body: deployment }))
        .status,
      201,
    );
    cluster.deny({ resource: "deployments.apps", verb: "delete" });
    try {
      const denied = await call(cluster, "/apis/apps/v1/namespaces/default/deployments/web", { method: "DELETE" });
      assert.equal(denied.status, 403);
    } finally {
      cluster.allowAll();
    }
    const [created, forbidden]: Json[] = cluster.auditEvents().slice(-2);
    assert.equal(created.level, "RequestResponse");
    assert.equal(created.objectRef.apiGroup, "apps");
    assert.equal(created.requestObject.metadata.name, "web");
    assert.equal(created.responseObject.metadata.uid, cluster.get("apps/v1", "Deployment", "web")?.metadata?.uid);
    assert.equal(forbidden.annotations["authorization.k8s.io/decision"], "forbid");
    assert.equal(forbidden.responseStatus.code, 403);
    assert.equal(forbidden.responseStatus.reason, "Forbidden");
  });

  test("recordAudit writes a helper-made change as an identity (for seeding a history)", () => {
    const cluster = sim.cluster("euro");
    cluster.recordAudit({
      credentials: bob,
      verb: "patch",
      target: { apiVersion: "v1", kind: "ConfigMap", name: "web-config", namespace: "shop" },
      userAgent: "kubectl/v1.35.0",
      fieldManager: "kubectl-patch",
    });
    const [event]: Json[] = cluster.auditEvents();
    assert.equal(event.requestURI, "/api/v1/namespaces/shop/configmaps/web-config?fieldManager=kubectl-patch");
    assert.equal(event.level, "Metadata");
    assert.deepEqual(event.user.extra.sessionName, ["bob@example.com"]);
    assert.deepEqual(event.objectRef, {
      resource: "configmaps",
      namespace: "shop",
      name: "web-config",
      apiVersion: "v1",
    });
    assert.throws(
      () =>
        cluster.recordAudit({
          credentials: { accessKeyId: "AKIAUNKNOWN", secretAccessKey: "x" },
          verb: "create",
          target: { apiVersion: "v1", kind: "Secret", name: "s" },
        }),
      /not known to the simulated IAM/,
    );
  });

  test("a cluster with audit logging off writes nothing and DescribeCluster says so", async () => {
    assert.deepEqual(sim.cluster("quiet").auditEvents(), []);
    const eks = new EKSClient({ region: "us-east-1", endpoint: sim.eksEndpoint, credentials: sim.credentials });
    try {
      const quiet = await eks.send(new DescribeClusterCommand({ name: "quiet" }));
      assert.deepEqual(quiet.cluster?.logging?.clusterLogging, [
        { types: ["api", "audit", "authenticator", "controllerManager", "scheduler"], enabled: false },
      ]);
      const audited = await eks.send(new DescribeClusterCommand({ name: "audited" }));
      assert.deepEqual(audited.cluster?.logging?.clusterLogging?.[0], { types: ["audit"], enabled: true });
    } finally {
      eks.destroy();
    }
  });
});

describe("CloudWatch Logs through @aws-sdk/client-cloudwatch-logs", () => {
  const group = "/aws/eks/audited/cluster";

  test("FilterLogEvents sees nothing before the delivery lag, then the events by JSON pattern, terms and pages", async () => {
    clock = new Date(START.getTime() + 30_000);
    const early = await logs.send(
      new FilterLogEventsCommand({ logGroupName: group, logStreamNamePrefix: "kube-apiserver-audit" }),
    );
    assert.deepEqual(early.events, []);
    clock = new Date(START.getTime() + 5_000 + LAG_MS);
    const patched = await logs.send(
      new FilterLogEventsCommand({
        logGroupName: group,
        logStreamNamePrefix: "kube-apiserver-audit",
        startTime: START.getTime(),
        endTime: START.getTime() + 10_000,
        filterPattern: '{ $.objectRef.name = "web-config" && $.verb = "patch" }',
      }),
    );
    assert.equal(patched.events?.length, 1);
    const event = patched.events?.[0];
    assert.match(event?.logStreamName ?? "", /^kube-apiserver-audit-[0-9a-f]{32}$/);
    assert.equal(event?.timestamp, START.getTime() + 5_000);
    assert.equal(event?.ingestionTime, START.getTime() + 5_000 + LAG_MS);
    assert.equal(JSON.parse(event?.message ?? "{}").user.extra.sessionName[0], "bob@example.com");
    const revision = await logs.send(
      new FilterLogEventsCommand({ logGroupName: group, filterPattern: '"sh.helm.release.v1.web.v1" create' }),
    );
    assert.equal(revision.events?.length, 1);
    const optional = await logs.send(
      new FilterLogEventsCommand({
        logGroupName: group,
        filterPattern: '?kubectl-patch ?"namespaces/default/pods" -Helm',
      }),
    );
    assert.deepEqual(
      optional.events?.map((e) => JSON.parse(e.message ?? "{}").verb),
      ["patch", "list"],
    );
    const groups = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: "/aws/eks/" }));
    assert.deepEqual(
      groups.logGroups?.map((g) => g.logGroupName),
      ["/aws/eks/audited/cluster"],
    );
    const first = await logs.send(new FilterLogEventsCommand({ logGroupName: group, limit: 2 }));
    assert.equal(first.events?.length, 2);
    assert.ok(first.nextToken);
    const second = await logs.send(
      new FilterLogEventsCommand({ logGroupName: group, limit: 2, nextToken: first.nextToken }),
    );
    assert.ok((second.events?.length ?? 0) >= 1);
    assert.notEqual(second.events?.[0].eventId, first.events?.[0].eventId);
  });

  test("Logs Insights: StartQuery, GetQueryResults with fields, filter, sort and limit", async () => {
    clock = new Date(START.getTime() + 5_000 + LAG_MS);
    const { queryId } = await logs.send(
      new StartQueryCommand({
        logGroupName: group,
        startTime: START.getTime() / 1000,
        endTime: START.getTime() / 1000 + 60,
        queryString:
          'filter @logStream like "kube-apiserver-audit" | filter objectRef.resource="configmaps" and objectRef.name="web-config" and verb like /patch|update/ | fields stageTimestamp, user.extra.sessionName.0, userAgent, sourceIPs.0 | sort @timestamp desc | limit 5',
      }),
    );
    const results = await logs.send(new GetQueryResultsCommand({ queryId }));
    assert.equal(results.status, "Complete");
    assert.equal(results.results?.length, 1);
    const row = Object.fromEntries((results.results?.[0] ?? []).map((f) => [f.field, f.value]));
    assert.deepEqual(
      { ...row, "@ptr": typeof row["@ptr"] },
      {
        stageTimestamp: "2026-12-02T15:10:05.000000Z",
        "user.extra.sessionName.0": "bob@example.com",
        userAgent: "kubectl/v1.35.0 (linux/amd64) kubernetes/abcdef",
        "sourceIPs.0": "203.0.113.7",
        "@ptr": "string",
      },
    );
    assert.equal(results.statistics?.recordsMatched, 1);
  });

  test("the service's errors: missing group, malformed query, concurrency, throttling, wrong region", async () => {
    const name = async (promise: Promise<unknown>) => {
      try {
        await promise;
        return "no error";
      } catch (error) {
        return (error as Error).name;
      }
    };
    assert.equal(
      await name(logs.send(new FilterLogEventsCommand({ logGroupName: "/aws/eks/quiet/cluster" }))),
      "ResourceNotFoundException",
    );
    const times = { startTime: START.getTime() / 1000, endTime: START.getTime() / 1000 + 60 };
    assert.equal(
      await name(
        logs.send(
          new StartQueryCommand({ logGroupName: "/aws/eks/quiet/cluster", queryString: "fields @message", ...times }),
        ),
      ),
      "ResourceNotFoundException",
    );
    assert.equal(
      await name(
        logs.send(new StartQueryCommand({ logGroupName: group, queryString: "stats count(*) by verb", ...times })),
      ),
      "MalformedQueryException",
    );
    assert.equal(
      await name(logs.send(new FilterLogEventsCommand({ logGroupName: group, filterPattern: "{ $.verb = " }))),
      "InvalidParameterException",
    );
    assert.equal(
      await name(logs.send(new FilterLogEventsCommand({ logGroupName: group, limit: 0 }))),
      "InvalidParameterException",
    );
    sim.logs.setLimits({ maxConcurrentQueries: 1, queryLatencyMs: 3_600_000 });
    try {
      const { queryId } = await logs.send(
        new StartQueryCommand({ logGroupName: group, queryString: "fields @message", ...times }),
      );
      assert.equal((await logs.send(new GetQueryResultsCommand({ queryId }))).status, "Running");
      assert.equal(
        await name(logs.send(new StartQueryCommand({ logGroupName: group, queryString: "fields @message", ...times }))),
        "LimitExceededException",
      );
      assert.equal((await logs.send(new StopQueryCommand({ queryId }))).success, true);
      assert.equal((await logs.send(new GetQueryResultsCommand({ queryId }))).status, "Cancelled");
    } finally {
      sim.logs.setLimits({ maxConcurrentQueries: 30, queryLatencyMs: 0 });
    }
    sim.logs.throttle(1);
    try {
      await logs.send(new FilterLogEventsCommand({ logGroupName: group }));
      assert.fail("expected a throttle");
    } catch (error) {
      assert.equal((error as Error).name, "ThrottlingException");
      assert.equal((error as Error).message, "Rate exceeded");
    }
    const europe = new CloudWatchLogsClient({
      region: "eu-west-1",
      endpoint: sim.logsEndpoint,
      credentials: sim.credentials,
      maxAttempts: 1,
    });
    try {
      assert.equal(
        await name(europe.send(new FilterLogEventsCommand({ logGroupName: group }))),
        "ResourceNotFoundException",
      );
      const euro = await europe.send(new FilterLogEventsCommand({ logGroupName: "/aws/eks/euro/cluster" }));
      assert.deepEqual(
        euro.events?.map((e) => JSON.parse(e.message ?? "{}").objectRef.name),
        ["web-config"],
      );
    } finally {
      europe.destroy();
    }
  });
});
