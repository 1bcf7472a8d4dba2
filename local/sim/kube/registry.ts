import { defaultPrinter } from "./tables/common.ts";
import {
  configMapPrinter,
  endpointsPrinter,
  namespacePrinter,
  nodePrinter,
  pvcPrinter,
  replicationControllerPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from "./tables/core.ts";
import { customResourcePrinter, type PrinterColumnSpec } from "./tables/custom.ts";
import { eventPrinter } from "./tables/events.ts";
import {
  hpaPrinter,
  ingressPrinter,
  networkPolicyPrinter,
  podDisruptionBudgetPrinter,
  priorityClassPrinter,
  roleBindingPrinter,
} from "./tables/networking.ts";
import { podPrinter } from "./tables/pod.ts";
import {
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  jobPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from "./tables/workloads.ts";
import { ALL_VERBS, type KubeObject, type ResourceType, type TablePrinter } from "./types.ts";

const NAMESPACE_VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"];

function builtin(
  groupVersions: string,
  kind: string,
  plural: string,
  options: {
    namespaced?: boolean;
    shortNames?: string[];
    all?: boolean;
    printer?: TablePrinter;
    subresources?: string[];
    verbs?: string[];
  } = {},
): ResourceType {
  const [group, versionList] = groupVersions.includes("/") ? groupVersions.split("/") : ["", groupVersions];
  return {
    group,
    versions: versionList.split(","),
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced: options.namespaced ?? true,
    verbs: options.verbs ?? ALL_VERBS,
    shortNames: options.shortNames,
    categories: options.all ? ["all"] : undefined,
    subresources: options.subresources ?? ["status"],
    printer: options.printer ?? defaultPrinter,
  };
}

/** The kinds of kubernetes-api.md §3 plus the few core kinds clients probe; the rest come from CRDs. */
export function builtinResources(): ResourceType[] {
  const cluster = { namespaced: false };
  return [
    builtin("v1", "Pod", "pods", {
      shortNames: ["po"],
      all: true,
      printer: podPrinter,
      subresources: ["status", "log"],
    }),
    builtin("v1", "Service", "services", { shortNames: ["svc"], all: true, printer: servicePrinter }),
    builtin("v1", "ConfigMap", "configmaps", { shortNames: ["cm"], printer: configMapPrinter, subresources: [] }),
    builtin("v1", "Secret", "secrets", { printer: secretPrinter, subresources: [] }),
    builtin("v1", "ServiceAccount", "serviceaccounts", {
      shortNames: ["sa"],
      printer: serviceAccountPrinter,
      subresources: ["token"],
    }),
    builtin("v1", "Namespace", "namespaces", {
      ...cluster,
      shortNames: ["ns"],
      printer: namespacePrinter,
      verbs: NAMESPACE_VERBS,
    }),
    builtin("v1", "PersistentVolumeClaim", "persistentvolumeclaims", { shortNames: ["pvc"], printer: pvcPrinter }),
    builtin("v1", "PersistentVolume", "persistentvolumes", { ...cluster, shortNames: ["pv"] }),
    builtin("v1", "Node", "nodes", { ...cluster, shortNames: ["no"], printer: nodePrinter }),
    builtin("v1", "Event", "events", { shortNames: ["ev"], printer: eventPrinter, subresources: [] }),
    builtin("v1", "Endpoints", "endpoints", { shortNames: ["ep"], printer: endpointsPrinter, subresources: [] }),
    builtin("v1", "ReplicationController", "replicationcontrollers", {
      shortNames: ["rc"],
      all: true,
      printer: replicationControllerPrinter,
    }),
    builtin("v1", "LimitRange", "limitranges", { shortNames: ["limits"], subresources: [] }),
    builtin("v1", "ResourceQuota", "resourcequotas", { shortNames: ["quota"] }),
    builtin("apps/v1", "Deployment", "deployments", {
      shortNames: ["deploy"],
      all: true,
      printer: deploymentPrinter,
      subresources: ["status", "scale"],
    }),
    builtin("apps/v1", "ReplicaSet", "replicasets", {
      shortNames: ["rs"],
      all: true,
      printer: replicaSetPrinter,
      subresources: ["status", "scale"],
    }),
    builtin("apps/v1", "StatefulSet", "statefulsets", {
      shortNames: ["sts"],
      all: true,
      printer: statefulSetPrinter,
      subresources: ["status", "scale"],
    }),
    builtin("apps/v1", "DaemonSet", "daemonsets", { shortNames: ["ds"], all: true, printer: daemonSetPrinter }),
    builtin("apps/v1", "ControllerRevision", "controllerrevisions", { subresources: [] }),
    builtin("batch/v1", "Job", "jobs", { all: true, printer: jobPrinter }),
    builtin("batch/v1", "CronJob", "cronjobs", { shortNames: ["cj"], all: true, printer: cronJobPrinter }),
    builtin("networking.k8s.io/v1", "Ingress", "ingresses", { shortNames: ["ing"], printer: ingressPrinter }),
    builtin("networking.k8s.io/v1", "NetworkPolicy", "networkpolicies", {
      shortNames: ["netpol"],
      printer: networkPolicyPrinter,
    }),
    builtin("networking.k8s.io/v1", "IngressClass", "ingressclasses", { ...cluster, subresources: [] }),
    builtin("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", {
      shortNames: ["pdb"],
      printer: podDisruptionBudgetPrinter,
    }),
    builtin("rbac.authorization.k8s.io/v1", "Role", "roles", { subresources: [] }),
    builtin("rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings", {
      printer: roleBindingPrinter,
      subresources: [],
    }),
    builtin("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", { ...cluster, subresources: [] }),
    builtin("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "clusterrolebindings", {
      ...cluster,
      printer: roleBindingPrinter,
      subresources: [],
    }),
    builtin("autoscaling/v2,v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", {
      shortNames: ["hpa"],
      all: true,
      printer: hpaPrinter,
    }),
    builtin("apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions", {
      ...cluster,
      shortNames: ["crd", "crds"],
    }),
    // The same objects as core/v1 events, converted (events.ts); no watch here.
    builtin("events.k8s.io/v1", "Event", "events", {
      shortNames: ["ev"],
      printer: eventPrinter,
      subresources: [],
      verbs: ["create", "delete", "get", "list"],
    }),
    builtin("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", {
      ...cluster,
      shortNames: ["pc"],
      printer: priorityClassPrinter,
      subresources: [],
    }),
    builtin("storage.k8s.io/v1", "StorageClass", "storageclasses", {
      ...cluster,
      shortNames: ["sc"],
      subresources: [],
    }),
  ];
}

/** All servable resources of one cluster: the built-ins plus whatever established CRDs define. */
export class ResourceRegistry {
  private readonly types: ResourceType[] = [];

  constructor() {
    for (const type of builtinResources()) this.types.push(type);
  }

  all(): ResourceType[] {
    return [...this.types];
  }

  /** Group names in discovery order (core "" first, then built-ins, then CRD groups). */
  groups(): string[] {
    return [...new Set(this.types.map((t) => t.group))];
  }

  byResource(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.plural === plural && t.versions.includes(version));
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    return this.types.find((t) => t.group === group && t.kind === kind && t.versions.includes(version));
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.types.filter((t) => t.group === group && t.versions.includes(version));
  }

  /** Makes a CRD's kind servable (what "Established" means); returns an error text for a bad CRD. */
  registerCrd(crd: KubeObject): string | undefined {
    // biome-ignore lint/suspicious/noExplicitAny: CRD spec is untyped JSON
    const spec = (crd.spec ?? {}) as any;
    const names = spec.names ?? {};
    if (!spec.group || !names.plural || !names.kind)
      return "spec.group, spec.names.plural and spec.names.kind are required";
    if (crd.metadata?.name !== `${names.plural}.${spec.group}`) {
      return `metadata.name must be spec.names.plural+"."+spec.group ("${names.plural}.${spec.group}")`;
    }
    const versions = ((spec.versions ?? []) as Array<{ name: string; served?: boolean; storage?: boolean }>).filter(
      (v) => v.served !== false,
    );
    if (versions.length === 0) return "spec.versions must contain at least one served version";
    this.unregisterCrd(crd.metadata.name);
    // Preferred version: the storage version first, as the apiserver's discovery orders them.
    versions.sort((a, b) => Number(Boolean(b.storage)) - Number(Boolean(a.storage)));
    const columns = (spec.versions as Array<{ name: string; additionalPrinterColumns?: PrinterColumnSpec[] }>).find(
      (v) => v.name === versions[0].name,
    )?.additionalPrinterColumns;
    this.types.push({
      group: spec.group,
      versions: versions.map((v) => v.name),
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural,
      singular: names.singular ?? names.kind.toLowerCase(),
      namespaced: spec.scope !== "Cluster",
      verbs: ALL_VERBS,
      shortNames: names.shortNames,
      categories: names.categories,
      subresources: spec.versions?.[0]?.subresources?.status ? ["status"] : [],
      printer: customResourcePrinter(columns),
      crdName: crd.metadata.name,
    });
    return undefined;
  }

  unregisterCrd(crdName: string): ResourceType | undefined {
    const index = this.types.findIndex((t) => t.crdName === crdName);
    if (index < 0) return undefined;
    return this.types.splice(index, 1)[0];
  }
}

export function apiVersionOf(type: ResourceType, version = type.versions[0]): string {
  return type.group ? `${type.group}/${version}` : version;
}

/** `deployments.apps` / `pods`, as kube-apiserver names resources in messages. */
export function qualifiedResource(type: { group: string; plural: string }): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}
