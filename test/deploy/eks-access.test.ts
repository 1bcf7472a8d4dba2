/** Registry `access` blocks -> EKS access entries (fast), and the RBAC manifests for aws-auth clusters. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { builtinResources } from "../../local/sim/kube/registry.ts";
import { parseClusterRegistry } from "../../shared/clusters/registry.ts";
import { clusters, eksAccess, type Json } from "./infra.ts";

const view = { policies: [{ policy: "AmazonEKSViewPolicy" }] };

test("an access block is normalised: policies with their scope, groups; aws-auth is a mode of its own", () => {
  assert.deepEqual(
    clusters.validateAccess(
      { policies: [{ policy: "AmazonEKSViewPolicy", namespaces: ["apps", "apps"] }], groups: ["readers"] },
      "x",
    ),
    {
      mode: "access-entry",
      policies: [{ policy: "AmazonEKSViewPolicy", namespaces: ["apps"] }],
      groups: ["readers"],
    },
  );
  assert.deepEqual(clusters.validateAccess("aws-auth", "x"), { mode: "aws-auth" });
});

test("write policies, empty blocks, bad namespaces, reserved groups and unknown fields are refused", () => {
  const refused: [unknown, RegExp][] = [
    [{ policies: [{ policy: "AmazonEKSClusterAdminPolicy" }] }, /not a read-only access policy/],
    [{ policies: [{ policy: "AmazonEKSEditPolicy" }] }, /not a read-only access policy/],
    [{}, /grants nothing/],
    [{ policies: [{ policy: "AmazonEKSViewPolicy", namespaces: [] }] }, /non-empty list of namespace/],
    [{ policies: [{ policy: "AmazonEKSViewPolicy", namespaces: ["Apps"] }] }, /namespace names/],
    [{ groups: ["system:masters"] }, /not a usable Kubernetes group/],
    [{ ...view, policy: "x" }, /x\.policy: unknown field/],
    [{ policies: [view.policies[0], view.policies[0]] }, /listed twice/],
    ["config-map", /expected "aws-auth"/],
  ];
  for (const [access, message] of refused) assert.throws(() => clusters.validateAccess(access, "x"), message);
});

test("one entry per covered cluster and cluster-reading function; the rest are manual steps with commands", () => {
  const registry: Json[] = [
    { name: "prod", region: "eu-west-1", access: clusters.validateAccess(view, "t") },
    { name: "other-region", region: "us-east-1", access: clusters.validateAccess(view, "t") },
    { name: "old", region: "eu-west-1", access: clusters.validateAccess("aws-auth", "t") },
    {
      name: "partner",
      region: "eu-west-1",
      roleArn: "arn:aws:iam::111122223333:role/reader",
      access: clusters.validateAccess(view, "t"),
    },
    { name: "unmanaged", region: "eu-west-1" },
  ];
  const built = eksAccess.buildAccessEntries({
    service: "svc",
    stage: "prod",
    region: "eu-west-1",
    access: { api: { clusters: "read" }, worker: { clusters: "read" }, webhook: { sqs: { send: ["Q"] } } },
    registry,
  });
  assert.deepEqual(Object.keys(built.Resources), ["EksAccessProdApi", "EksAccessProdWorker"]);
  assert.deepEqual(built.Resources.EksAccessProdWorker.Properties.PrincipalArn, {
    "Fn::GetAtt": ["WorkerRole", "Arn"],
  });
  assert.deepEqual(
    built.notCovered.map((entry) => entry.cluster),
    ["other-region", "old", "partner"],
  );
  const role = "arn:aws:iam::123456789012:role/svc-prod-eu-west-1-api";
  assert.deepEqual(eksAccess.manualCommands(registry[1], role), [
    `aws eks create-access-entry --cluster-name other-region --region us-east-1 --principal-arn ${role} --type STANDARD`,
    `aws eks associate-access-policy --cluster-name other-region --region us-east-1 --principal-arn ${role} --policy-arn arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy --access-scope type=cluster`,
  ]);
  assert.deepEqual(eksAccess.manualCommands(registry[2], role, "api"), [
    `eksctl create iamidentitymapping --cluster old --region eu-west-1 --arn ${role} --username helm-status-api --group helm-status-readers`,
  ]);
  assert.match(
    eksAccess.manualCommands(registry[3], role)[0],
    /--principal-arn arn:aws:iam::111122223333:role\/reader/,
  );
});

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const manifests = (file: string) =>
  parseAllDocuments(readFileSync(new URL(`../../infra/rbac/${file}`, import.meta.url), "utf8")).map(
    (document) => document.toJS() as { kind: string; metadata: Json; rules?: Rule[]; subjects?: Json[] },
  );

test("the reader ClusterRole: get on every kind a chart holds except Secrets, list on pods and events only, bound to the group", () => {
  const [role, binding] = manifests("helm-status-reader.yml");
  assert.equal(role.kind, "ClusterRole");
  const granted = new Set<string>();
  for (const rule of role.rules ?? []) {
    for (const verb of rule.verbs) assert.ok(["get", "list"].includes(verb), `verb ${verb}`);
    for (const group of rule.apiGroups)
      for (const resource of rule.resources) {
        assert.notEqual(resource, "*");
        if (rule.verbs.includes("list")) {
          assert.ok(
            ["/pods", "/events"].includes(`${group}/${resource}`),
            "list is for related pods and the namespace's events only",
          );
        }
        if (rule.verbs.includes("get")) granted.add(`${group}/${resource}`);
      }
  }
  // Kinds no chart installs: the API server creates them.
  const notInCharts = new Set(["/nodes", "/events", "events.k8s.io/events", "apps/controllerrevisions"]);
  for (const type of builtinResources()) {
    const key = `${type.group}/${type.plural}`;
    if (key === "/secrets") assert.ok(!granted.has(key), "no Secrets in the cluster-wide role");
    else if (!notInCharts.has(key)) assert.ok(granted.has(key), `no get on ${key}`);
  }
  assert.equal(binding.kind, "ClusterRoleBinding");
  assert.deepEqual(binding.subjects, [
    { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "helm-status-readers" },
  ]);
});

test("the optional Secrets grant is get only, in one namespace, for the same group", () => {
  const [role, binding] = manifests("helm-status-secrets.yml");
  assert.equal(role.kind, "Role");
  assert.ok(role.metadata.namespace);
  assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }]);
  assert.equal(binding.kind, "RoleBinding");
  assert.equal(binding.metadata.namespace, role.metadata.namespace);
  assert.equal((binding.subjects as Json[])[0].name, "helm-status-readers");
});

test("the runtime registry accepts a registry file with access blocks and ignores them", () => {
  const entries = parseClusterRegistry(
    "- name: prod\n  region: eu-west-1\n  access: { policies: [{ policy: AmazonEKSViewPolicy }] }\n- name: old\n  region: eu-west-1\n  access: aws-auth\n",
    "infra/clusters.yml",
  );
  assert.deepEqual(entries, [
    { name: "prod", region: "eu-west-1" },
    { name: "old", region: "eu-west-1" },
  ]);
});

test("the release sync's ClusterRole: list and get on Secrets and ConfigMaps, nothing else, bound to its group", () => {
  const [role, binding] = manifests("helm-status-sync.yml");
  assert.equal(role.kind, "ClusterRole");
  assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["list", "get"] }]);
  assert.equal(binding.kind, "ClusterRoleBinding");
  assert.deepEqual(binding.subjects, [
    { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "helm-status-sync" },
  ]);
});
