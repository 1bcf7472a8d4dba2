import type { KubeObject, ServerVersion, TableColumn } from "../types.ts";
import { age, ageColumn, column, containerCells, field, formatLabels, int, nameColumn, printer } from "./common.ts";

export const serviceExternalIp = (svc: KubeObject): string => {
  const externalIps: string[] = field(svc, "spec", "externalIPs") ?? [];
  switch (field(svc, "spec", "type") ?? "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return externalIps.length > 0 ? externalIps.join(",") : "<none>";
    case "LoadBalancer": {
      const ingress: Array<{ ip?: string; hostname?: string }> = field(svc, "status", "loadBalancer", "ingress") ?? [];
      const lb = [...new Set(ingress.map((i) => i.ip || i.hostname || "").filter(Boolean))].sort();
      const all = [...lb, ...externalIps];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return field(svc, "spec", "externalName") ?? "";
    default:
      return "<unknown>";
  }
};

function servicePorts(svc: KubeObject): string {
  const ports: Array<{ port?: number; nodePort?: number; protocol?: string }> = field(svc, "spec", "ports") ?? [];
  if (ports.length === 0) return "<none>";
  return ports
    .map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? "TCP"}` : `${p.port}/${p.protocol ?? "TCP"}`))
    .join(",");
}

export const servicePrinter = printer(
  [
    nameColumn(),
    column("Type", "string", 0, "The type of the service."),
    column("Cluster-IP", "string", 0, "The cluster IP of the service."),
    column("External-IP", "string", 0, "The external IP of the service."),
    column("Port(s)", "string", 0, "The ports of the service."),
    ageColumn(),
    column("Selector", "string", 1, "Route service traffic to pods with label keys and values matching this selector."),
  ],
  (svc, ctx) => [
    svc.metadata?.name,
    field(svc, "spec", "type") ?? "ClusterIP",
    field(svc, "spec", "clusterIPs", 0) ?? field(svc, "spec", "clusterIP") ?? "<none>",
    serviceExternalIp(svc),
    servicePorts(svc),
    age(svc, ctx),
    formatLabels(field(svc, "spec", "selector")),
  ],
);

const countKeys = (value: unknown) => (value && typeof value === "object" ? Object.keys(value).length : 0);

export const configMapPrinter = printer(
  [nameColumn(), column("Data", "integer", 0, "Number of data entries in the config map."), ageColumn()],
  (cm, ctx) => [cm.metadata?.name, countKeys(cm.data) + countKeys(cm.binaryData), age(cm, ctx)],
);

export const secretPrinter = printer(
  [
    nameColumn(),
    column("Type", "string", 0, "The type of the secret"),
    column("Data", "integer", 0, "The number of entries in the secret"),
    ageColumn(),
  ],
  (s, ctx) => [s.metadata?.name, s.type ?? "Opaque", countKeys(s.data), age(s, ctx)],
);

/** SECRETS was removed from the ServiceAccount printer in 1.35 (kubernetes/kubernetes#117160). */
export const serviceAccountPrinter = printer(
  (version: ServerVersion): TableColumn[] =>
    version.minor <= 34
      ? [
          nameColumn(),
          column("Secrets", "integer", 0, "Secrets is a list of the secrets in the same namespace."),
          ageColumn(),
        ]
      : [nameColumn(), ageColumn()],
  (sa, ctx) =>
    ctx.version.minor <= 34
      ? [sa.metadata?.name, ((sa.secrets as unknown[]) ?? []).length, age(sa, ctx)]
      : [sa.metadata?.name, age(sa, ctx)],
);

export const namespacePrinter = printer(
  [nameColumn(), column("Status", "string", 0, "The status of the namespace"), ageColumn()],
  (ns, ctx) => [ns.metadata?.name, field(ns, "status", "phase") ?? "Active", age(ns, ctx)],
);

const MODES: Record<string, string> = {
  ReadWriteOnce: "RWO",
  ReadOnlyMany: "ROX",
  ReadWriteMany: "RWX",
  ReadWriteOncePod: "RWOP",
};
const accessModes = (modes: unknown): string => ((modes as string[]) ?? []).map((m) => MODES[m] ?? m).join(",");

export const pvcPrinter = printer(
  (version: ServerVersion) => [
    nameColumn(),
    column("Status", "string", 0, "The phase of the claim"),
    column("Volume", "string", 0, "The name of the bound volume"),
    column("Capacity", "string", 0, "The capacity of the bound volume"),
    column("Access Modes", "string", 0, "The access modes of the bound volume"),
    column("StorageClass", "string", 0, "The storage class of the claim"),
    ...(version.minor >= 29 ? [column("VolumeAttributesClass", "string", 0, "The volume attributes class")] : []),
    ageColumn(),
    column("VolumeMode", "string", 1, "The volume mode of the claim"),
  ],
  (pvc, ctx) => {
    const bound = Boolean(field(pvc, "spec", "volumeName"));
    const cells: unknown[] = [
      pvc.metadata?.name,
      pvc.metadata?.deletionTimestamp ? "Terminating" : (field(pvc, "status", "phase") ?? "Pending"),
      field(pvc, "spec", "volumeName") ?? "",
      bound ? (field(pvc, "status", "capacity", "storage") ?? "") : "",
      bound ? accessModes(field(pvc, "status", "accessModes")) : "",
      field(pvc, "spec", "storageClassName") ??
        field(pvc, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class") ??
        "",
    ];
    if (ctx.version.minor >= 29) cells.push(field(pvc, "status", "currentVolumeAttributesClassName") || "<unset>");
    cells.push(age(pvc, ctx), field(pvc, "spec", "volumeMode") ?? "<unset>");
    return cells;
  },
);

export const nodePrinter = printer(
  [
    nameColumn(),
    column("Status", "string", 0, "The status of the node"),
    column("Roles", "string", 0, "The roles of the node"),
    ageColumn(),
    column("Version", "string", 0, "Kubelet Version reported by the node."),
    column(
      "Internal-IP",
      "string",
      1,
      "List of addresses reachable to the node. Queried from cloud provider, if available.",
    ),
    column(
      "External-IP",
      "string",
      1,
      "List of addresses reachable to the node. Queried from cloud provider, if available.",
    ),
    column(
      "OS-Image",
      "string",
      1,
      "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
    ),
    column(
      "Kernel-Version",
      "string",
      1,
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    ),
    column(
      "Container-Runtime",
      "string",
      1,
      "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
    ),
  ],
  (node, ctx) => {
    const conditions: Array<{ type: string; status: string }> = field(node, "status", "conditions") ?? [];
    const ready = conditions.find((c) => c.type === "Ready");
    let status = ready
      ? ready.status === "True"
        ? "Ready"
        : ready.status === "False"
          ? "NotReady"
          : "Unknown"
      : "Unknown";
    if (field(node, "spec", "unschedulable")) status += ",SchedulingDisabled";
    const roles = Object.keys(node.metadata?.labels ?? {})
      .filter((l) => l.startsWith("node-role.kubernetes.io/"))
      .map((l) => l.slice("node-role.kubernetes.io/".length))
      .sort();
    const addresses: Array<{ type: string; address: string }> = field(node, "status", "addresses") ?? [];
    const address = (type: string) => addresses.find((a) => a.type === type)?.address ?? "<none>";
    const info = field(node, "status", "nodeInfo") ?? {};
    return [
      node.metadata?.name,
      status,
      roles.length > 0 ? roles.join(",") : "<none>",
      age(node, ctx),
      info.kubeletVersion ?? "",
      address("InternalIP"),
      address("ExternalIP"),
      info.osImage ?? "<unknown>",
      info.kernelVersion ?? "<unknown>",
      info.containerRuntimeVersion ?? "<unknown>",
    ];
  },
);

export const replicationControllerPrinter = printer(
  [
    nameColumn(),
    column("Desired", "integer", 0, "Replicas is the number of desired replicas."),
    column("Current", "integer", 0, "Replicas is the most recently observed number of replicas."),
    column("Ready", "integer", 0, "The number of ready replicas for this replication controller."),
    ageColumn(),
    column("Containers", "string", 1, "Names of each container in the template."),
    column("Images", "string", 1, "Images referenced by each container in the template."),
    column("Selector", "string", 1, "Label selector used to select the pods."),
  ],
  (rc, ctx) => [
    rc.metadata?.name,
    int(field(rc, "spec", "replicas") ?? 1),
    int(field(rc, "status", "replicas")),
    int(field(rc, "status", "readyReplicas")),
    age(rc, ctx),
    ...containerCells(field(rc, "spec", "template", "spec")),
    formatLabels(field(rc, "spec", "selector")),
  ],
);

export const endpointsPrinter = printer(
  [nameColumn(), column("Endpoints", "string", 0, "Endpoints of the service"), ageColumn()],
  (ep, ctx) => {
    const list: string[] = [];
    for (const subset of (field(ep, "subsets") ?? []) as Array<Record<string, unknown>>) {
      const ports = (subset.ports as Array<{ port: number }>) ?? [];
      for (const address of (subset.addresses as Array<{ ip: string }>) ?? []) {
        if (ports.length === 0) list.push(address.ip);
        for (const port of ports) list.push(`${address.ip}:${port.port}`);
      }
    }
    let text = list.slice(0, 3).join(",");
    if (list.length > 3) text += ` + ${list.length - 3} more...`;
    return [ep.metadata?.name, list.length === 0 ? "<none>" : text, age(ep, ctx)];
  },
);
