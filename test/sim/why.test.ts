import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { demoReleases } from "../../local/demo/releases.ts";
import { type SimCluster, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { kubectlPath } from "../support/kube-tools.ts";
import { call } from "./helpers.ts";

const run = promisify(execFile);
const START = new Date("2026-12-02T15:10:00Z");
const TTL_MS = 3_600_000;
let clock = START;
let sim: SimulatedEks;
let cluster: SimCluster;
let kubectl: string | undefined;
let home: string;

// biome-ignore lint/suspicious/noExplicitAny: objects are inspected field by field
type Json = any;

function deployment(name: string, podSpec: object, annotations: Record<string, string> = {}): object {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name }, annotations }, spec: podSpec },
    },
  };
}

const container = (extra: object = {}) => ({ name: "app", image: "example/app:1.0", ...extra });
const env = (name: string, value: string) => ({ env: [{ name, value }] });

const MANIFEST = [
  deployment("pull", { containers: [container({ image: "example/app:does-not-exist" })] }),
  deployment("oom", {
    containers: [container({ resources: { limits: { memory: "128Mi" } }, ...env("SIM_MEMORY_USAGE", "300Mi") })],
  }),
  deployment("big", { containers: [container({ resources: { requests: { cpu: "4", memory: "1Gi" } } })] }),
  deployment("probe", {
    containers: [
      container({ readinessProbe: { httpGet: { path: "/ready", port: 8080 } }, ...env("SIM_PROBE_FAIL", "readiness") }),
    ],
  }),
  deployment(
    "crash",
    { containers: [container(env("SIM_EXIT_CODE", "1"))] },
    { "sim.helm-status.dev/log": "panic: the planted line" },
  ),
  deployment("init", {
    initContainers: [container({ name: "migrate", ...env("SIM_EXIT_CODE", "2") })],
    containers: [container()],
  }),
  deployment("mount", {
    containers: [container()],
    volumes: [{ name: "config", configMap: { name: "missing-config" } }],
  }),
  deployment("envref", {
    containers: [
      container({ env: [{ name: "X", valueFrom: { secretKeyRef: { name: "missing-secret", key: "x" } } }] }),
    ],
  }),
  deployment(
    "huge",
    { containers: [container(env("SIM_EXIT_CODE", "1"))] },
    { "sim.helm-status.dev/log-bytes": "104857600" },
  ),
  deployment("healthy", { containers: [container()] }),
  deployment("live", {
    containers: [container({ livenessProbe: { tcpSocket: { port: 8080 } }, ...env("SIM_PROBE_FAIL", "liveness") })],
  }),
  {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "migrate" },
    spec: {
      backoffLimit: 2,
      template: { spec: { restartPolicy: "Never", containers: [container(env("SIM_EXIT_CODE", "1"))] } },
    },
  },
];

const podOf = (prefix: string): Json =>
  cluster.list("v1", "Pod", "shop").find((p) => p.metadata?.name?.startsWith(`${prefix}-`)) as Json;
const eventsOf = (name: string): Json[] =>
  cluster.list("v1", "Event", "shop").filter((e: Json) => e.involvedObject.name === name);

before(async () => {
  kubectl = await kubectlPath();
  sim = await startSimulatedEks({ clusters: [{ name: "why" }], now: () => clock, eventTtlMs: TTL_MS });
  cluster = sim.cluster("why");
  cluster.materialize(MANIFEST.map((o) => JSON.stringify(o)).join("\n---\n"), {
    namespace: "shop",
    createdAt: new Date(START.getTime() - 30 * 60_000),
  });
  home = await mkdtemp(join(tmpdir(), "sim-why-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

async function kubectlRun(args: string[]) {
  const file = join(home, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, cluster.kubeconfig({ namespace: "shop" }), { mode: 0o600 });
  try {
    const { stdout } = await run(kubectl as string, args, {
      env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: file, KUBECACHEDIR: join(home, "cache") },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr: "" };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  } finally {
    await rm(file, { force: true });
  }
}

describe("pod states decided from the spec, and what the kubelet and scheduler record", () => {
  test("an image that does not exist: ImagePullBackOff, Failed events with ErrImagePull", () => {
    const pod = podOf("pull");
    assert.equal(pod.status.phase, "Pending");
    assert.deepEqual(pod.status.containerStatuses[0].state.waiting, {
      reason: "ImagePullBackOff",
      message: 'Back-off pulling image "example/app:does-not-exist"',
    });
    const failed = eventsOf(pod.metadata.name)
      .filter((e) => e.reason === "Failed")
      .map((e) => e.message);
    assert.ok(failed.includes("Error: ErrImagePull"), failed.join("\n"));
    assert.ok(
      failed.some((m) => m.startsWith('Failed to pull image "example/app:does-not-exist": rpc error: code = NotFound')),
    );
    assert.equal(eventsOf(pod.metadata.name).find((e) => e.reason === "Failed").involvedObject.uid, pod.metadata.uid);
  });

  test("memory over the limit: OOMKilled, exit code 137, CrashLoopBackOff", () => {
    const status = podOf("oom").status.containerStatuses[0];
    assert.equal(status.state.waiting.reason, "CrashLoopBackOff");
    assert.equal(status.lastState.terminated.reason, "OOMKilled");
    assert.equal(status.lastState.terminated.exitCode, 137);
    assert.equal(status.restartCount, 5);
  });

  test("requests beyond the nodes: Pending, FailedScheduling with a series", () => {
    const pod = podOf("big");
    assert.equal(pod.status.phase, "Pending");
    assert.equal(pod.spec.nodeName, undefined);
    assert.equal(pod.status.conditions[0].reason, "Unschedulable");
    const [event] = eventsOf(pod.metadata.name);
    assert.equal(event.reason, "FailedScheduling");
    assert.equal(event.type, "Warning");
    assert.match(event.message, /^0\/3 nodes are available: 3 Insufficient cpu\. preemption: /);
    assert.equal(event.reportingComponent, "default-scheduler");
    assert.equal(event.series.count, 7);
    assert.equal(event.series.lastObservedTime, "2026-12-02T15:10:00.000000Z");
  });

  test("a failing readiness probe: running, not ready, Unhealthy events", () => {
    const pod = podOf("probe");
    assert.equal(pod.status.containerStatuses[0].ready, false);
    assert.ok(pod.status.containerStatuses[0].state.running);
    const unhealthy = eventsOf(pod.metadata.name).find((e) => e.reason === "Unhealthy");
    assert.equal(unhealthy.message, "Readiness probe failed: HTTP probe failed with statuscode: 503");
    assert.equal(unhealthy.count, 180);
    const deployment: Json = cluster.get("apps/v1", "Deployment", "probe", "shop");
    assert.equal(deployment.status.readyReplicas, undefined);
  });

  test("a failing liveness probe: restarts, last terminated 137, Unhealthy and Killing", () => {
    const pod = podOf("live");
    const status = pod.status.containerStatuses[0];
    assert.equal(status.restartCount, 3);
    assert.equal(status.lastState.terminated.exitCode, 137);
    const reasons = eventsOf(pod.metadata.name).map((e) => `${e.reason}: ${e.message}`);
    assert.ok(reasons.includes(`Killing: Container app failed liveness probe, will be restarted`), reasons.join("\n"));
    assert.ok(
      reasons.includes(
        `Unhealthy: Liveness probe failed: dial tcp ${pod.status.podIP}:8080: connect: connection refused`,
      ),
      reasons.join("\n"),
    );
  });

  test("CrashLoopBackOff: last terminated Error with the exit code, restarts, BackOff x12", () => {
    const pod = podOf("crash");
    const status = pod.status.containerStatuses[0];
    assert.deepEqual(
      { ...status.lastState.terminated, containerID: undefined },
      {
        exitCode: 1,
        reason: "Error",
        startedAt: "2026-12-02T15:07:45Z",
        finishedAt: "2026-12-02T15:07:46Z",
        containerID: undefined,
      },
    );
    const backOff = eventsOf(pod.metadata.name).find((e) => e.reason === "BackOff");
    assert.equal(backOff.count, 12);
    assert.equal(
      backOff.message,
      `Back-off restarting failed container app in pod ${pod.metadata.name}_shop(${pod.metadata.uid})`,
    );
    assert.equal(backOff.firstTimestamp, "2026-12-02T14:40:02Z");
    assert.equal(backOff.lastTimestamp, "2026-12-02T15:10:00Z");
  });

  test("a failing init container, a missing ConfigMap volume, a missing Secret reference, a failed Job", () => {
    const init = podOf("init");
    assert.equal(init.status.initContainerStatuses[0].state.waiting.reason, "CrashLoopBackOff");
    assert.equal(init.status.initContainerStatuses[0].lastState.terminated.exitCode, 2);
    assert.equal(init.status.containerStatuses[0].state.waiting.reason, "PodInitializing");
    const mount = podOf("mount");
    assert.equal(mount.status.containerStatuses[0].state.waiting.reason, "ContainerCreating");
    assert.equal(
      eventsOf(mount.metadata.name).find((e) => e.reason === "FailedMount").message,
      'MountVolume.SetUp failed for volume "config" : configmap "missing-config" not found',
    );
    const envref = podOf("envref");
    assert.deepEqual(envref.status.containerStatuses[0].state.waiting, {
      reason: "CreateContainerConfigError",
      message: 'secret "missing-secret" not found',
    });
    const job = eventsOf("migrate").find((e) => e.involvedObject.kind === "Job");
    assert.equal(job.reason, "BackoffLimitExceeded");
    assert.equal(eventsOf(podOf("healthy").metadata.name).length, 0);
  });

  test("the demo's api: CrashLoopBackOff with 5 restarts and its BackOff event", async () => {
    const demo = demoReleases().find((d) => d.revisions[0].name === "api");
    const sim2 = await startSimulatedEks({ clusters: [{ name: "demo" }], now: () => START });
    try {
      const demoCluster = sim2.cluster("demo");
      demoCluster.materialize(demo?.revisions.at(-1)?.manifest ?? "", demo?.live);
      const pod: Json = demoCluster.list("v1", "Pod", "shop").find((p) => p.metadata?.name?.startsWith("api-"));
      assert.equal(pod.status.containerStatuses[0].restartCount, 5);
      const backOff: Json = demoCluster.list("v1", "Event", "shop").find((e) => e.reason === "BackOff");
      assert.match(backOff.message, /^Back-off restarting failed container api in pod api-/);
      assert.equal(backOff.involvedObject.uid, pod.metadata.uid);
    } finally {
      await sim2.stop();
    }
  });
});

describe("the events APIs", () => {
  test("core/v1 field selectors and limit/continue", async () => {
    const pod = podOf("crash");
    const byUid = await call(
      cluster,
      `/api/v1/namespaces/shop/events?fieldSelector=involvedObject.uid=${pod.metadata.uid},type=Warning`,
    );
    assert.deepEqual(
      byUid.json.items.map((e: Json) => e.reason),
      ["BackOff"],
    );
    const byName = await call(
      cluster,
      `/api/v1/namespaces/shop/events?fieldSelector=involvedObject.name=${pod.metadata.name},reason=Started`,
    );
    assert.equal(byName.json.items.length, 1);
    const first = await call(cluster, "/api/v1/namespaces/shop/events?fieldSelector=type%3DWarning&limit=3");
    assert.equal(first.json.items.length, 3);
    const rest = await call(
      cluster,
      `/api/v1/namespaces/shop/events?fieldSelector=type%3DWarning&limit=100&continue=${first.json.metadata.continue}`,
    );
    const all = await call(cluster, "/api/v1/namespaces/shop/events?fieldSelector=type%3DWarning");
    assert.equal(first.json.items.length + rest.json.items.length, all.json.items.length);
    const bad = await call(cluster, "/api/v1/namespaces/shop/events?fieldSelector=note%3Dx");
    assert.equal(bad.status, 400);
  });

  test("events.k8s.io/v1: the same events with regarding, note, deprecated* and its own field labels", async () => {
    const pod = podOf("big");
    const reply = await call(
      cluster,
      `/apis/events.k8s.io/v1/namespaces/shop/events?fieldSelector=regarding.name=${pod.metadata.name}`,
    );
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.kind, "EventList");
    const [event] = reply.json.items;
    assert.equal(event.apiVersion, "events.k8s.io/v1");
    assert.equal(event.regarding.uid, pod.metadata.uid);
    assert.match(event.note, /^0\/3 nodes are available/);
    assert.equal(event.reportingController, "default-scheduler");
    assert.equal(event.series.count, 7);
    const crash = podOf("crash");
    const legacy = await call(
      cluster,
      `/apis/events.k8s.io/v1/namespaces/shop/events?fieldSelector=regarding.uid=${crash.metadata.uid},reason=BackOff`,
    );
    assert.equal(legacy.json.items[0].deprecatedCount, 12);
    assert.equal(legacy.json.items[0].deprecatedSource.component, "kubelet");
    const created = await call(cluster, "/apis/events.k8s.io/v1/namespaces/shop/events", {
      method: "POST",
      body: {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "crash.written-by-a-controller" },
        eventTime: "2026-12-02T15:10:00.000000Z",
        reportingController: "example.com/controller",
        reportingInstance: "controller-0",
        action: "Reconciling",
        reason: "Failed",
        note: "written through events.k8s.io",
        type: "Warning",
        regarding: { kind: "Pod", namespace: "shop", name: crash.metadata.name, uid: crash.metadata.uid },
      },
    });
    assert.equal(created.status, 201, created.text);
    const core: Json = cluster.get("v1", "Event", "crash.written-by-a-controller", "shop");
    assert.equal(core.message, "written through events.k8s.io");
    assert.equal(core.involvedObject.uid, crash.metadata.uid);
    assert.equal(core.reportingComponent, "example.com/controller");
    const bad = await call(
      cluster,
      "/apis/events.k8s.io/v1/namespaces/shop/events?fieldSelector=involvedObject.name%3Dx",
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, "field label not supported: involvedObject.name");
  });
});

describe("the log subresource", () => {
  const log = (pod: string, query = "") => call(cluster, `/api/v1/namespaces/shop/pods/${pod}/log${query}`);

  test("the crashed instance's log, with the planted line, tailLines, limitBytes, previous, sinceSeconds", async () => {
    const pod = podOf("crash").metadata.name;
    const whole = await log(pod);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers["content-type"], "text/plain");
    const lines = whole.text.trimEnd().split("\n");
    assert.equal(lines.at(-2), "panic: the planted line");
    assert.match(lines.at(-1) ?? "", /ERROR app: fatal error during start-up, exiting with status 1$/);
    assert.equal((await log(pod, "?previous=true&tailLines=2")).text, `${lines.slice(-2).join("\n")}\n`);
    assert.equal((await log(pod, "?limitBytes=10")).text, whole.text.slice(0, 10));
    assert.equal((await log(pod, "?container=app&previous=true")).text, whole.text);
    assert.equal((await log(pod, "?sinceSeconds=60")).text, "");
    assert.match((await log(pod, "?tailLines=1&timestamps=true")).text, /^2026-12-02T15:07:46\.000000000Z /);
  });

  test("a 100 MB log is read bounded; the API server's 400s; pods/log can be denied alone", async () => {
    const huge = podOf("huge").metadata.name;
    const bounded = await log(huge, "?tailLines=5&limitBytes=65536");
    assert.equal(bounded.text.split("\n").length, 6);
    const capped = await log(huge, "?limitBytes=65536");
    assert.equal(Buffer.byteLength(capped.text), 65536);
    const waiting = await log(podOf("pull").metadata.name);
    assert.equal(waiting.status, 400);
    assert.equal(
      waiting.json.message,
      `container "app" in pod "${podOf("pull").metadata.name}" is waiting to start: trying and failing to pull image`,
    );
    const healthy = podOf("healthy").metadata.name;
    assert.equal(
      (await log(healthy, "?previous=true")).json.message,
      `previous terminated container "app" in pod "${healthy}" not found`,
    );
    assert.equal(
      (await log(healthy, "?container=nope")).json.message,
      `container nope is not valid for pod ${healthy}`,
    );
    assert.equal((await log(podOf("big").metadata.name)).status, 400);
    assert.equal((await log(healthy, "?tailLines=-1")).status, 400);
    cluster.deny({ resource: "pods/log" });
    try {
      const denied = await log(healthy);
      assert.equal(denied.status, 403);
      assert.match(denied.json.message, /cannot get resource "pods\/log" in API group ""/);
      assert.equal((await call(cluster, `/api/v1/namespaces/shop/pods/${healthy}`)).status, 200);
    } finally {
      cluster.allowAll();
    }
  });
});

describe("the real kubectl", { concurrency: false }, () => {
  test("get events, describe pod, logs --previous --tail", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const pod = podOf("crash").metadata.name;
    const events = await kubectlRun(["get", "events", "--field-selector", `involvedObject.name=${pod}`]);
    assert.equal(events.code, 0, events.stderr);
    const lines = events.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$/);
    assert.ok(
      lines.some((l) =>
        new RegExp(`^0s +Warning +BackOff +pod/${pod} +Back-off restarting failed container app in pod `).test(l),
      ),
      events.stdout,
    );
    const described = await kubectlRun(["describe", "pod", pod]);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /Last State: +Terminated\n +Reason: +Error\n +Exit Code: +1\n/);
    assert.match(described.stdout, /Restart Count: +5\n/);
    assert.match(
      described.stdout,
      /Events:\n[\s\S]*Warning +BackOff +\S+ \(x12 over \S+\) +kubelet +spec\.containers\{app\}: Back-off restarting failed container app/,
    );
    const logs = await kubectlRun(["logs", pod, "--previous", "--tail=2"]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /^panic: the planted line\n.*exiting with status 1\n$/);
    const waiting = await kubectlRun(["logs", podOf("pull").metadata.name]);
    assert.equal(waiting.code, 1);
    assert.match(waiting.stderr, /is waiting to start: trying and failing to pull image/);
  });

  test("events expire after the TTL (kube-apiserver's --event-ttl)", async (t) => {
    const before = cluster.list("v1", "Event", "shop").length;
    assert.ok(before > 0);
    clock = new Date(START.getTime() + TTL_MS - 1000);
    assert.equal(cluster.list("v1", "Event", "shop").length, before);
    clock = new Date(START.getTime() + TTL_MS + 1000);
    assert.equal((await call(cluster, "/api/v1/namespaces/shop/events")).json.items.length, 0);
    if (!kubectl) return t.skip("no kubectl");
    const events = await kubectlRun(["get", "events"]);
    assert.equal(events.code, 0, events.stderr);
    assert.equal(events.stdout, "");
  });
});

describe("controllers: what kubectl applies becomes pods in the state their spec decides", {
  concurrency: false,
}, () => {
  test("kubectl apply of an image that does not exist, then kubectl set image", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const ctl = await startSimulatedEks({ clusters: [{ name: "ctl", controllers: true }] });
    try {
      const target = ctl.cluster("ctl");
      const file = join(home, "web.json");
      await writeFile(
        file,
        JSON.stringify(deployment("web", { containers: [container({ image: "nginx:does-not-exist" })] })),
      );
      const config = join(home, "ctl-kubeconfig");
      await writeFile(config, target.kubeconfig({ namespace: "default" }), { mode: 0o600 });
      const kc = (args: string[]) =>
        run(kubectl as string, args, {
          env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: config, KUBECACHEDIR: join(home, "cache-ctl") },
          timeout: 60_000,
        });
      await kc(["apply", "-f", file]);
      const podsOf = async () => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const pods = target.list("v1", "Pod", "default").filter((p) => p.metadata?.name?.startsWith("web-"));
          if (pods.length > 0) return pods as Json[];
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return [];
      };
      const [pulling] = await podsOf();
      assert.equal(pulling.status.containerStatuses[0].state.waiting.reason, "ImagePullBackOff");
      const described = await kc(["describe", "pod", pulling.metadata.name]);
      assert.match(described.stdout, /Warning +Failed .*Error: ErrImagePull/);
      await kc(["set", "image", "deployment/web", "app=nginx:1.29"]);
      let running: Json[] = [];
      for (let attempt = 0; attempt < 50 && !running.some((p) => p.status.containerStatuses[0].ready); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        running = await podsOf();
      }
      assert.equal(running.length, 1);
      assert.notEqual(running[0].metadata.name, pulling.metadata.name);
      assert.ok(running[0].status.containerStatuses[0].state.running);
      assert.equal((target.get("apps/v1", "Deployment", "web") as Json).status.readyReplicas, 1);
    } finally {
      await ctl.stop();
    }
  });
});
