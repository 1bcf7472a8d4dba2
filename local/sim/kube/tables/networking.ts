import type { KubeObject } from "../types.ts";
import { age, ageColumn, column, field, formatLabelSelector, int, nameColumn, printer } from "./common.ts";

export const ingressPrinter = printer(
  [
    nameColumn(),
    column("Class", "string", 0, "The name of the IngressClass resource that should be used for ingress."),
    column("Hosts", "string", 0, "Hosts that incoming requests are matched against before the ingress rule"),
    column("Address", "string", 0, "Address is a list containing ingress points for the load-balancer"),
    column("Ports", "string", 0, "Ports of TLS configurations that open"),
    ageColumn(),
  ],
  (ing, ctx) => {
    const hosts = ((field(ing, "spec", "rules") ?? []) as Array<{ host?: string }>)
      .map((r) => r.host ?? "")
      .filter(Boolean);
    let hostCell = hosts.length === 0 ? "*" : hosts.slice(0, 3).join(",");
    if (hosts.length > 3) hostCell += ` + ${hosts.length - 3} more...`;
    const ingress: Array<{ ip?: string; hostname?: string }> = field(ing, "status", "loadBalancer", "ingress") ?? [];
    const address = ingress
      .map((i) => i.ip || i.hostname || "")
      .filter(Boolean)
      .join(",");
    const tls = (field(ing, "spec", "tls") ?? []) as unknown[];
    return [
      ing.metadata?.name,
      field(ing, "spec", "ingressClassName") ?? "<none>",
      hostCell,
      address,
      tls.length > 0 ? "80, 443" : "80",
      age(ing, ctx),
    ];
  },
);

export const networkPolicyPrinter = printer(
  [
    nameColumn(),
    column("Pod-Selector", "string", 0, "Selects the pods to which this NetworkPolicy object applies."),
    ageColumn(),
  ],
  (np, ctx) => [np.metadata?.name, formatLabelSelector(field(np, "spec", "podSelector")), age(np, ctx)],
);

const intOrString = (value: unknown) => (value === undefined || value === null ? "N/A" : String(value));

export const podDisruptionBudgetPrinter = printer(
  [
    nameColumn(),
    column("Min Available", "string", 0, "The minimum number of pods that must be available."),
    column("Max Unavailable", "string", 0, "The maximum number of pods that may be unavailable."),
    column("Allowed Disruptions", "integer", 0, "Calculated number of pods that may be disrupted at this time."),
    ageColumn(),
  ],
  (pdb, ctx) => [
    pdb.metadata?.name,
    intOrString(field(pdb, "spec", "minAvailable")),
    intOrString(field(pdb, "spec", "maxUnavailable")),
    int(field(pdb, "status", "disruptionsAllowed")),
    age(pdb, ctx),
  ],
);

// biome-ignore lint/suspicious/noExplicitAny: metric specs are untyped JSON
type Json = any;

/** `formatHPAMetrics` (1.30+: resource metrics carry a `cpu: ` prefix); v1 objects are read through their CPU target. */
export function hpaTargets(hpa: KubeObject): string {
  let specs: Json[] = field(hpa, "spec", "metrics") ?? [];
  let statuses: Json[] = field(hpa, "status", "currentMetrics") ?? [];
  const v1Target = field(hpa, "spec", "targetCPUUtilizationPercentage");
  if (specs.length === 0 && typeof v1Target === "number") {
    specs = [
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: v1Target } } },
    ];
    const current = field(hpa, "status", "currentCPUUtilizationPercentage");
    statuses =
      typeof current === "number" ? [{ type: "Resource", resource: { current: { averageUtilization: current } } }] : [];
  }
  if (specs.length === 0) return "<none>";
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    switch (spec.type) {
      case "Resource":
      case "ContainerResource": {
        const source = spec.type === "Resource" ? spec.resource : spec.containerResource;
        const current = status?.resource?.current ?? status?.containerResource?.current;
        if (source?.target?.averageValue !== undefined) {
          return `${source.name}: ${current?.averageValue ?? "<unknown>"}/${source.target.averageValue}`;
        }
        const currentText = current?.averageUtilization !== undefined ? `${current.averageUtilization}%` : "<unknown>";
        const target =
          source?.target?.averageUtilization !== undefined ? `${source.target.averageUtilization}%` : "<auto>";
        return `${source?.name}: ${currentText}/${target}`;
      }
      case "Pods":
        return `${status?.pods?.current?.averageValue ?? "<unknown>"}/${spec.pods?.target?.averageValue}`;
      case "Object": {
        const target = spec.object?.target;
        const current = status?.object?.current;
        if (target?.averageValue !== undefined)
          return `${current?.averageValue ?? "<unknown>"}/${target.averageValue} (avg)`;
        return `${current?.value ?? "<unknown>"}/${target?.value}`;
      }
      case "External": {
        const target = spec.external?.target;
        const current = status?.external?.current;
        if (target?.averageValue !== undefined)
          return `${current?.averageValue ?? "<unknown>"}/${target.averageValue} (avg)`;
        return `${current?.value ?? "<unknown>"}/${target?.value}`;
      }
      default:
        return "<unknown type>";
    }
  });
  const shown = list.slice(0, 2).join(", ");
  return list.length > 2 ? `${shown} + ${list.length - 2} more...` : shown;
}

export const hpaPrinter = printer(
  [
    nameColumn(),
    column("Reference", "string", 0, "Reference to the target object."),
    column("Targets", "string", 0, "Metrics"),
    column("MinPods", "string", 0, "Lower limit for the number of pods that can be set by the autoscaler."),
    column("MaxPods", "integer", 0, "Upper limit for the number of pods that can be set by the autoscaler."),
    column("Replicas", "integer", 0, "Current number of replicas of pods managed by this autoscaler."),
    ageColumn(),
  ],
  (hpa, ctx) => {
    const min = field(hpa, "spec", "minReplicas");
    return [
      hpa.metadata?.name,
      `${field(hpa, "spec", "scaleTargetRef", "kind") ?? ""}/${field(hpa, "spec", "scaleTargetRef", "name") ?? ""}`,
      hpaTargets(hpa),
      typeof min === "number" ? String(min) : "<unset>",
      int(field(hpa, "spec", "maxReplicas")),
      int(field(hpa, "status", "currentReplicas")),
      age(hpa, ctx),
    ];
  },
);

export const roleBindingPrinter = printer(
  [
    nameColumn(),
    column("Role", "string", 0, "RoleRef is the reference to the role."),
    ageColumn(),
    column("Users", "string", 1, "Users in the binding"),
    column("Groups", "string", 1, "Groups in the binding"),
    column("ServiceAccounts", "string", 1, "ServiceAccounts in the binding"),
  ],
  (rb, ctx) => {
    const subjects: Array<{ kind: string; name: string; namespace?: string }> = field(rb, "subjects") ?? [];
    const of = (kind: string) => subjects.filter((s) => s.kind === kind);
    return [
      rb.metadata?.name,
      `${field(rb, "roleRef", "kind") ?? ""}/${field(rb, "roleRef", "name") ?? ""}`,
      age(rb, ctx),
      of("User")
        .map((s) => s.name)
        .join(", "),
      of("Group")
        .map((s) => s.name)
        .join(", "),
      of("ServiceAccount")
        .map((s) => `${s.namespace ?? ""}/${s.name}`)
        .join(", "),
    ];
  },
);

/** kubectl's printPriorityClass: the value, whether it is the global default, and the preemption policy. */
export const priorityClassPrinter = printer(
  [
    nameColumn(),
    column("Value", "integer", 0, "value represents the integer value of this priority class."),
    column(
      "Global-Default",
      "boolean",
      0,
      "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.",
    ),
    ageColumn(),
    column("PreemptionPolicy", "string", 0, "preemptionPolicy is the Policy for preempting pods with lower priority."),
  ],
  (pc, ctx) => [
    pc.metadata?.name,
    int(field(pc, "value")),
    field(pc, "globalDefault") === true,
    age(pc, ctx),
    field(pc, "preemptionPolicy") ?? "<none>",
  ],
);
