/** The cause chains (shared/why): pod objects as kubelet and the scheduler write them, in words. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { CAUSES_KEPT, causesOf, verdictCause } from "../../shared/why/causes.ts";
import { describeContainer, podProblems } from "../../shared/why/containers.ts";
import { describeEvent, EVENTS_KEPT, ownedUids, releaseEvents } from "../../shared/why/events.ts";
import { syntheticReport } from "../support/synthetic-report.ts";

const NOW = new Date("2026-12-04T12:00:00Z");

function pod(name: string, status: Record<string, unknown>) {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "shop" }, status };
}

const crashLooping = pod("api-1", {
  phase: "Running",
  containerStatuses: [
    {
      name: "api",
      ready: false,
      restartCount: 5,
      state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 2m40s restarting failed container" } },
      lastState: { terminated: { reason: "Error", exitCode: 1, finishedAt: "2026-12-04T11:58:00Z" } },
    },
  ],
});

test("a crash-looping container: waiting reason, last termination with exit code and age, restarts", () => {
  const problems = podProblems(crashLooping)!;
  assert.equal(problems.containers.length, 1);
  assert.equal(
    describeContainer(problems.containers[0], NOW),
    "container api CrashLoopBackOff, last terminated Error, exit code 1, 2m ago, 5 restarts",
  );
});

test("OOMKilled with its signal, an image that cannot be pulled with kubelet's message, an unschedulable pod", () => {
  const oom = podProblems(
    pod("w-1", {
      containerStatuses: [
        {
          name: "worker",
          restartCount: 1,
          state: { terminated: { reason: "OOMKilled", exitCode: 137, signal: 9 } },
        },
      ],
    }),
  )!;
  assert.equal(
    describeContainer(oom.containers[0], NOW),
    "container worker terminated OOMKilled, exit code 137, signal 9, 1 restart",
  );
  const pull = podProblems(
    pod("w-2", {
      containerStatuses: [
        {
          name: "web",
          state: { waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "nginx:does-not-exist"' } },
        },
      ],
    }),
  )!;
  assert.equal(
    describeContainer(pull.containers[0], NOW),
    'container web ImagePullBackOff: Back-off pulling image "nginx:does-not-exist"',
  );
  const pending = podProblems(
    pod("w-3", {
      phase: "Pending",
      conditions: [
        {
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message: "0/3 nodes are available: 3 Insufficient cpu.",
        },
      ],
    }),
  )!;
  assert.equal(pending.unschedulable, "0/3 nodes are available: 3 Insufficient cpu.");
});

test("healthy, starting and completed containers are not causes; odd shapes say less, never throw", () => {
  const fine = podProblems(
    pod("ok", {
      initContainerStatuses: [
        { name: "migrate", ready: false, state: { terminated: { reason: "Completed", exitCode: 0 } } },
      ],
      containerStatuses: [
        { name: "a", ready: true, state: { running: {} } },
        { name: "b", ready: false, state: { waiting: { reason: "ContainerCreating" } } },
      ],
    }),
  )!;
  assert.deepEqual(fine.containers, []);
  for (const odd of [
    null,
    1,
    "x",
    {},
    { metadata: {} },
    { metadata: { name: "p" }, status: { containerStatuses: [1, null, { name: 2 }] } },
  ]) {
    const problems = podProblems(odd);
    assert.ok(problems === undefined || problems.containers.length === 0);
  }
});

test("the chain: the workload not Current → its pod with a problem (+ how many more) → the worst container, init first", () => {
  const initFailing = pod("api-2", {
    initContainerStatuses: [
      {
        name: "migrate",
        restartCount: 3,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { reason: "Error", exitCode: 2 } },
      },
    ],
    containerStatuses: [{ name: "api", ready: false, state: { waiting: { reason: "PodInitializing" } } }],
  });
  const causes = causesOf(
    {
      resources: [
        {
          index: 0,
          apiVersion: "v1",
          kind: "Service",
          name: "api",
          namespace: "shop",
          health: { status: "Current", message: "" },
        },
        {
          index: 1,
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: "api",
          namespace: "shop",
          health: { status: "Failed", message: "x" },
        },
        {
          index: 2,
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: "quiet",
          health: { status: "InProgress", message: "x" },
        },
      ],
      related: [
        { owners: [1], objects: [initFailing, crashLooping] },
        {
          owners: [2],
          objects: [pod("quiet-1", { containerStatuses: [{ name: "q", ready: true, state: { running: {} } }] })],
        },
      ],
    },
    NOW,
  );
  assert.deepEqual(
    causes.map((c) => c.text),
    [
      "Deployment api Failed → pod api-2 (+1 more) → init container migrate CrashLoopBackOff, last terminated Error, exit code 2, 3 restarts",
    ],
  );
  assert.equal(causes[0].podsWithProblems, 2);
  assert.equal(causes[0].pods.length, 1);
});

test("the text's WHY section follows HEALTH, one row per cause, a multi-line cell cut as kubectl cuts it; bounded per report", () => {
  const report = syntheticReport(1, 1);
  report.causes = [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "api",
      health: "Failed",
      pods: [],
      podsWithProblems: 1,
      text: 'Deployment api Failed → pod p → container api ErrImagePull, "line\nbreak"',
    },
  ];
  const text = renderStatusText(report);
  assert.match(
    text,
    /==> HEALTH\n[\s\S]*\n\n==> WHY\nKIND +NAME +WHY\nv1\/Deployment +api +pod p → container api ErrImagePull, "line\.\.\.\n\n/,
  );
  assert.doesNotMatch(renderStatusText(report, { health: false }), /==> WHY/);
  const many = causesOf(
    {
      resources: Array.from({ length: CAUSES_KEPT + 10 }, (_, i) => ({
        index: i,
        apiVersion: "v1",
        kind: "Pod",
        name: `p${i}`,
        health: { status: "Failed" as const, message: "" },
        object: crashLooping,
      })),
      related: [],
    },
    NOW,
  );
  assert.equal(many.length, CAUSES_KEPT);
});

function event(uid: string, reason: string, overrides: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Event",
    type: "Warning",
    reason,
    message: `${reason} happened`,
    involvedObject: { kind: "Pod", name: `pod-${uid}`, namespace: "shop", uid },
    count: 1,
    firstTimestamp: "2026-12-04T11:00:00Z",
    lastTimestamp: "2026-12-04T11:50:00Z",
    ...overrides,
  };
}

test("events: only the release's objects by uid (never another release's similarly named pod), folded, Warning and newest first, bounded", () => {
  const pods = [{ metadata: { uid: "p1", ownerReferences: [{ kind: "ReplicaSet", uid: "rs1" }] } }];
  const uids = ownedUids([{ metadata: { uid: "d1" } }], pods);
  assert.deepEqual([...uids].sort(), ["d1", "p1", "rs1"]);
  const listed = [
    event("p1", "BackOff", { count: 5, lastTimestamp: "2026-12-04T11:40:00Z" }),
    event("p1", "BackOff", { count: 7, firstTimestamp: "2026-12-04T10:00:00Z", lastTimestamp: "2026-12-04T11:55:00Z" }),
    event("rs1", "FailedCreate", { lastTimestamp: "2026-12-04T11:30:00Z" }),
    event("p1", "Pulled", { type: "Normal", lastTimestamp: "2026-12-04T11:59:00Z" }),
    // Another release's pod named like ours, and an event whose object is gone: never shown.
    event("other", "BackOff", { involvedObject: { kind: "Pod", name: "pod-p1", namespace: "shop", uid: "other" } }),
    event("gone", "FailedMount"),
    // A message of 1 MB is one bounded line.
    event("d1", "ProgressDeadlineExceeded", {
      message: `x\n${"y".repeat(1_000_000)}`,
      lastTimestamp: "2026-12-04T11:10:00Z",
    }),
    // events.k8s.io/v1 shape: regarding, note, series.
    {
      type: "Warning",
      reason: "Unhealthy",
      note: "Readiness probe failed",
      regarding: { kind: "Pod", name: "pod-p1", uid: "p1" },
      series: { count: 3, lastObservedTime: "2026-12-04T11:20:00Z" },
    },
    null,
    { reason: 1 },
  ];
  const events = releaseEvents(listed, uids);
  assert.deepEqual(
    events.map((e) => [e.type, e.reason, e.count, e.lastSeen]),
    [
      ["Warning", "BackOff", 12, "2026-12-04T11:55:00Z"],
      ["Warning", "FailedCreate", 1, "2026-12-04T11:30:00Z"],
      ["Warning", "Unhealthy", 3, "2026-12-04T11:20:00Z"],
      ["Warning", "ProgressDeadlineExceeded", 1, "2026-12-04T11:10:00Z"],
      ["Normal", "Pulled", 1, "2026-12-04T11:59:00Z"],
    ],
  );
  assert.equal(events[0].firstSeen, "2026-12-04T10:00:00Z");
  assert.ok(events[3].message.length <= 300 && !events[3].message.includes("\n"));
  assert.equal(describeEvent(events[0]), 'event BackOff ×12 "BackOff happened"');
  const many = Array.from({ length: 10_000 }, (_, i) => event("p1", `R${i}`));
  assert.equal(releaseEvents(many, uids).length, EVENTS_KEPT);
});

const progressDeadline = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "api", namespace: "shop", uid: "d1" },
  status: {
    conditions: [
      { type: "Available", status: "False", reason: "MinimumReplicasUnavailable" },
      {
        type: "Progressing",
        status: "False",
        reason: "ProgressDeadlineExceeded",
        message: 'ReplicaSet "api-7d9" has timed out progressing.',
      },
    ],
  },
};
const autoscaler = (target: string, conditions: unknown) => ({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: `hpa-${target}`, namespace: "shop" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: target } },
  status: { conditions },
});
const resource = (index: number, object: Record<string, unknown>, status: "Failed" | "Current" = "Failed") => ({
  index,
  apiVersion: String(object.apiVersion),
  kind: String(object.kind),
  name: String((object.metadata as { name: string }).name),
  namespace: "shop",
  health: { status, message: "" },
  object,
});

test("the controllers' conditions are links: ProgressDeadlineExceeded, and the conditions of the HPA scaling it", () => {
  const causes = causesOf(
    {
      resources: [
        resource(0, progressDeadline),
        resource(
          1,
          autoscaler("api", [
            { type: "AbleToScale", status: "True", reason: "SucceededGetScale" },
            {
              type: "ScalingActive",
              status: "False",
              reason: "FailedGetResourceMetric",
              message: "the HPA was unable to compute the replica count:\nfailed to get cpu utilization",
            },
          ]),
          "Current",
        ),
        // Another Deployment's HPA, and one whose conditions are not a list: neither is cited.
        resource(2, autoscaler("web", [{ type: "AbleToScale", status: "False", reason: "FailedGetScale" }]), "Current"),
        resource(3, { ...autoscaler("api", "broken"), metadata: { name: "odd", namespace: "shop" } }, "Current"),
      ],
      related: [{ owners: [0], objects: [crashLooping] }],
    },
    NOW,
  );
  assert.equal(causes.length, 1, "an HPA with a False condition is Current (kstatus): a link, not a cause");
  assert.deepEqual(
    causes[0].conditions?.map((c) => [c.kind, c.name, c.type, c.status, c.reason]),
    [
      ["Deployment", "api", "Progressing", "False", "ProgressDeadlineExceeded"],
      ["HorizontalPodAutoscaler", "hpa-api", "ScalingActive", "False", "FailedGetResourceMetric"],
    ],
  );
  assert.equal(
    causes[0].text,
    'Deployment api Failed → Progressing=False ProgressDeadlineExceeded "ReplicaSet "api-7d9" has timed out progressing." → HorizontalPodAutoscaler hpa-api ScalingActive=False FailedGetResourceMetric "the HPA was unable to compute the replica count: failed to get cpu utilization" → pod api-1 → container api CrashLoopBackOff, last terminated Error, exit code 1, 2m ago, 5 restarts',
  );
  // No troubled pod and no event: the condition alone is the cause.
  const alone = causesOf({ resources: [resource(0, progressDeadline)], related: [] }, NOW);
  assert.equal(
    alone[0].text,
    'Deployment api Failed → Progressing=False ProgressDeadlineExceeded "ReplicaSet "api-7d9" has timed out progressing."',
  );
});

test("the verdict cites the first cause of its own health, by its root, without what ticks (restarts, ages, pod names)", () => {
  const cause = (
    object: Record<string, unknown>,
    pods: Record<string, unknown>[],
    status: "Failed" | "InProgress" = "Failed",
  ) =>
    causesOf(
      {
        resources: [{ ...resource(0, object), health: { status, message: "" } }],
        related: [{ owners: [0], objects: pods }],
      },
      NOW,
    );
  const [crash] = cause(progressDeadline, [crashLooping]);
  assert.equal(verdictCause([crash], "Failed"), "Deployment api: container api CrashLoopBackOff, exit code 1");
  const oom = pod("w-1", {
    containerStatuses: [
      {
        name: "worker",
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { reason: "OOMKilled", exitCode: 137 } },
      },
    ],
  });
  const pending = pod("w-2", {
    conditions: [{ type: "PodScheduled", status: "False", message: "0/3 nodes are available: 3 Insufficient cpu." }],
  });
  const [oomCause] = cause({ ...progressDeadline, metadata: { name: "worker", uid: "d2" } }, [oom]);
  assert.equal(
    verdictCause([oomCause], "Failed"),
    "Deployment worker: container worker CrashLoopBackOff, OOMKilled, exit code 137",
  );
  const [waiting] = cause({ ...progressDeadline, metadata: { name: "big", uid: "d3" } }, [pending], "InProgress");
  const [condition] = cause(progressDeadline, []);
  assert.equal(
    verdictCause([waiting, condition], "Failed"),
    "Deployment api: Progressing=False ProgressDeadlineExceeded",
  );
  assert.equal(
    verdictCause([waiting, condition], "InProgress"),
    "Deployment big: pod unschedulable: 0/3 nodes are available: 3 Insufficient cpu.",
  );
  assert.equal(verdictCause([crash], "Current"), undefined);
  assert.equal(verdictCause([], "Failed"), undefined);
});

test("the HEALTH line cites it after kstatus's count; Helm's layout has no HEALTH line at all", () => {
  const report = syntheticReport(1, 1);
  report.health.cause = "Deployment api: container api CrashLoopBackOff, exit code 1\u001b[31m\nsecond line";
  const text = renderStatusText(report);
  assert.match(
    text,
    /\nHEALTH: \w+ \(kstatus: [^)]*\) because Deployment api: container api CrashLoopBackOff, exit code 1\^\[\[31m\.\.\.\n/,
  );
  assert.doesNotMatch(renderStatusText(report, { health: false }), /HEALTH|because/);
  delete report.health.cause;
  assert.match(renderStatusText(report), /\nHEALTH: \w+ \(kstatus: [^)]*\)\n/);
});
