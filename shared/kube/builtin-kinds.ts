import type { GroupVersionKind, ResourceMapping } from "./discovery.ts";

/**
 * The REST mapping of Kubernetes' built-in kinds (plural and scope), so a
 * release made only of them starts its GETs at once, with no discovery round
 * trip (/api, /apis) even in a cold process. These groups are served by every
 * supported kube-apiserver (1.25+: the versions below are GA and were never
 * removed). A kind not in the table goes through discovery (discovery.ts). If a
 * server does not serve one of these after all (a 404 whose Status names no
 * object: the resource type itself is unknown), the reader falls back to
 * discovery for it, then to "unknown kind" — never to "not found".
 */

type Scope = "ns" | "cluster";

const TABLE: Record<string, Record<string, [plural: string, scope: Scope]>> = {
  v1: {
    ComponentStatus: ["componentstatuses", "cluster"],
    ConfigMap: ["configmaps", "ns"],
    Endpoints: ["endpoints", "ns"],
    Event: ["events", "ns"],
    LimitRange: ["limitranges", "ns"],
    Namespace: ["namespaces", "cluster"],
    Node: ["nodes", "cluster"],
    PersistentVolume: ["persistentvolumes", "cluster"],
    PersistentVolumeClaim: ["persistentvolumeclaims", "ns"],
    Pod: ["pods", "ns"],
    PodTemplate: ["podtemplates", "ns"],
    ReplicationController: ["replicationcontrollers", "ns"],
    ResourceQuota: ["resourcequotas", "ns"],
    Secret: ["secrets", "ns"],
    Service: ["services", "ns"],
    ServiceAccount: ["serviceaccounts", "ns"],
  },
  "apps/v1": {
    ControllerRevision: ["controllerrevisions", "ns"],
    DaemonSet: ["daemonsets", "ns"],
    Deployment: ["deployments", "ns"],
    ReplicaSet: ["replicasets", "ns"],
    StatefulSet: ["statefulsets", "ns"],
  },
  "batch/v1": { CronJob: ["cronjobs", "ns"], Job: ["jobs", "ns"] },
  "networking.k8s.io/v1": {
    Ingress: ["ingresses", "ns"],
    IngressClass: ["ingressclasses", "cluster"],
    NetworkPolicy: ["networkpolicies", "ns"],
  },
  "rbac.authorization.k8s.io/v1": {
    ClusterRole: ["clusterroles", "cluster"],
    ClusterRoleBinding: ["clusterrolebindings", "cluster"],
    Role: ["roles", "ns"],
    RoleBinding: ["rolebindings", "ns"],
  },
  "policy/v1": { PodDisruptionBudget: ["poddisruptionbudgets", "ns"] },
  "autoscaling/v1": { HorizontalPodAutoscaler: ["horizontalpodautoscalers", "ns"] },
  "autoscaling/v2": { HorizontalPodAutoscaler: ["horizontalpodautoscalers", "ns"] },
  "storage.k8s.io/v1": {
    CSIDriver: ["csidrivers", "cluster"],
    CSINode: ["csinodes", "cluster"],
    CSIStorageCapacity: ["csistoragecapacities", "ns"],
    StorageClass: ["storageclasses", "cluster"],
    VolumeAttachment: ["volumeattachments", "cluster"],
  },
  "apiextensions.k8s.io/v1": { CustomResourceDefinition: ["customresourcedefinitions", "cluster"] },
  "admissionregistration.k8s.io/v1": {
    MutatingWebhookConfiguration: ["mutatingwebhookconfigurations", "cluster"],
    ValidatingWebhookConfiguration: ["validatingwebhookconfigurations", "cluster"],
  },
  "scheduling.k8s.io/v1": { PriorityClass: ["priorityclasses", "cluster"] },
  "coordination.k8s.io/v1": { Lease: ["leases", "ns"] },
  "discovery.k8s.io/v1": { EndpointSlice: ["endpointslices", "ns"] },
  "certificates.k8s.io/v1": { CertificateSigningRequest: ["certificatesigningrequests", "cluster"] },
  "node.k8s.io/v1": { RuntimeClass: ["runtimeclasses", "cluster"] },
};

const MAPPINGS = new Map<string, ResourceMapping>();
for (const [apiVersion, kinds] of Object.entries(TABLE)) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  for (const [kind, [resource, scope]] of Object.entries(kinds)) {
    MAPPINGS.set(
      `${apiVersion}|${kind}`,
      Object.freeze({ group, version, resource, kind, namespaced: scope === "ns" }),
    );
  }
}

/** The static mapping of a built-in kind, or undefined (then discovery decides). */
export function builtinMapping(gvk: GroupVersionKind): ResourceMapping | undefined {
  return MAPPINGS.get(`${gvk.apiVersion}|${gvk.kind}`);
}

/** Every built-in apiVersion|kind (tests compare it with the simulator's discovery). */
export function builtinKinds(): string[] {
  return [...MAPPINGS.keys()];
}
