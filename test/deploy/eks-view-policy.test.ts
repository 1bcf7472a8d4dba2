/**
 * What docs/deploy.md promises a user of each access level sees, on the simulated
 * EKS: the cluster denies (403) every built-in resource the access does not grant,
 * then a real status runs. AmazonEKSViewPolicy's resource list is AWS's
 * (EKS User Guide, access policy permissions); the reader ClusterRole is read from
 * infra/rbac/helm-status-reader.yml itself.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { builtinResources } from "../../local/sim/kube/registry.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "../status/sim-connector.ts";

/** group/plural of what AmazonEKSViewPolicy grants get/list/watch on ("" is the core group). */
const VIEW_POLICY = new Set([
  ...[
    "configmaps",
    "endpoints",
    "persistentvolumeclaims",
    "pods",
    "replicationcontrollers",
    "serviceaccounts",
    "services",
    "bindings",
    "events",
    "limitranges",
    "resourcequotas",
    "namespaces",
  ].map((plural) => `/${plural}`),
  ...["controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"].map((p) => `apps/${p}`),
  "autoscaling/horizontalpodautoscalers",
  "batch/cronjobs",
  "batch/jobs",
  "discovery.k8s.io/endpointslices",
  "networking.k8s.io/ingresses",
  "networking.k8s.io/networkpolicies",
  "policy/poddisruptionbudgets",
]);

function readerClusterRole(): Set<string> {
  const [role] = parseAllDocuments(
    readFileSync(new URL("../../infra/rbac/helm-status-reader.yml", import.meta.url), "utf8"),
  ).map((document) => document.toJS() as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] });
  const granted = new Set<string>();
  for (const rule of role.rules) {
    if (!rule.verbs.includes("get")) continue;
    for (const group of rule.apiGroups) for (const resource of rule.resources) granted.add(`${group}/${resource}`);
  }
  return granted;
}

const CLUSTER = "access-levels";
const NAMESPACE = "shop";
const MANIFEST = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${NAMESPACE}
data:
  mode: live
---
apiVersion: v1
kind: Secret
metadata:
  name: credentials
  namespace: ${NAMESPACE}
type: Opaque
stringData:
  password: hunter2-do-not-print
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${NAMESPACE}
spec:
  ports:
    - port: 80
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: web-reader
  namespace: ${NAMESPACE}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: web-reader
subjects:
  - kind: ServiceAccount
    name: default
    namespace: ${NAMESPACE}
`;

let sim: SimulatedEks;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }], seed: 3 });
  sim.cluster(CLUSTER).apply(MANIFEST);
});
after(async () => {
  await sim?.stop();
});

/** A status with every built-in resource outside `allowed` answering 403. */
async function statusWith(allowed: Set<string>) {
  const cluster = sim.cluster(CLUSTER);
  cluster.allowAll();
  for (const type of builtinResources()) {
    if (!allowed.has(`${type.group}/${type.plural}`)) {
      cluster.deny({ resource: type.group ? `${type.plural}.${type.group}` : type.plural });
    }
  }
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, {
    name: "web",
    namespace: NAMESPACE,
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
    chart: { metadata: { name: "web", version: "1.0.0" } },
    manifest: MANIFEST,
    hooks: [],
  });
  // A fresh reader per status: no discovery or pool carried over between access settings.
  const kube = createKubeReader({ connector: simConnector(sim) });
  const report = await releaseStatus(
    { store, kube, logger: silentLogger },
    { cluster: CLUSTER, namespace: NAMESPACE, name: "web" },
  ).finally(() => kube.close());
  const text = renderStatusText(report);
  assert.doesNotMatch(text, /hunter2/, "a Secret value is never printed, whatever the access");
  return { report, text, missing: report.missing.map((entry) => `${entry.kind}/${entry.name}: ${entry.reason}`) };
}

test("AmazonEKSViewPolicy: the Secret and the RoleBinding are forbidden rows of MISSING, the rest is read", async () => {
  const { report, text, missing } = await statusWith(VIEW_POLICY);
  assert.deepEqual(missing, ["Secret/credentials: forbidden", "RoleBinding/web-reader: forbidden"]);
  assert.match(text, /==> MISSING\nKIND +NAME +REASON\nv1\/Secret +credentials +forbidden\n/);
  assert.match(text, /v1\/RoleBinding +web-reader +forbidden/);
  assert.deepEqual(report.resources.map((resource) => resource.kind).sort(), ["ConfigMap", "Service"]);
  assert.match(text, /HEALTH: Unknown/, "what could not be read counts as Unknown");
});

test("view policy + the reader group (infra/rbac): only the Secret is forbidden", async () => {
  const { missing } = await statusWith(new Set([...VIEW_POLICY, ...readerClusterRole()]));
  assert.deepEqual(missing, ["Secret/credentials: forbidden"]);
});

test("+ get on Secrets in the namespace (helm-status-secrets.yml): the Secret's row, never its value", async () => {
  const { missing, text } = await statusWith(new Set([...VIEW_POLICY, ...readerClusterRole(), "/secrets"]));
  assert.deepEqual(missing, []);
  assert.match(text, /==> v1\/Secret\nNAME +TYPE +DATA +AGE\ncredentials +Opaque +1 +/);
});
