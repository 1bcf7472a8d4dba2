import type { KubeObject, PrintContext, ServerVersion, TableColumn, TablePrinter } from "../types.ts";
import {
  age,
  ageColumn,
  column,
  containerCells,
  field,
  formatLabelSelector,
  formatLabels,
  humanDuration,
  int,
  nameColumn,
  printer,
  since,
} from "./common.ts";

const wide = (): TableColumn[] => [
  column("Containers", "string", 1, "Names of each container in the template."),
  column("Images", "string", 1, "Images referenced by each container in the template."),
];
const selectorColumn = () => column("Selector", "string", 1, "Label selector used to select the pods.");

function templateCells(object: KubeObject, withSelector = true): unknown[] {
  const [containers, images] = containerCells(field(object, "spec", "template", "spec"));
  return withSelector
    ? [containers, images, formatLabelSelector(field(object, "spec", "selector"))]
    : [containers, images];
}

export const deploymentPrinter = printer(
  [
    nameColumn(),
    column("Ready", "string", 0, "Number of the pod with ready state"),
    column(
      "Up-to-date",
      "string",
      0,
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
    ),
    column(
      "Available",
      "string",
      0,
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
    ageColumn(),
    ...wide(),
    selectorColumn(),
  ],
  (d, ctx) => {
    const desired = field(d, "spec", "replicas") ?? 1;
    return [
      d.metadata?.name,
      `${int(field(d, "status", "readyReplicas"))}/${int(desired)}`,
      int(field(d, "status", "updatedReplicas")),
      int(field(d, "status", "availableReplicas")),
      age(d, ctx),
      ...templateCells(d),
    ];
  },
);

export const replicaSetPrinter = printer(
  [
    nameColumn(),
    column("Desired", "integer", 0, "Replicas is the number of desired replicas."),
    column("Current", "integer", 0, "Replicas is the most recently observed number of replicas."),
    column("Ready", "integer", 0, "The number of ready replicas for this replica set."),
    ageColumn(),
    ...wide(),
    selectorColumn(),
  ],
  (rs, ctx) => [
    rs.metadata?.name,
    int(field(rs, "spec", "replicas") ?? 1),
    int(field(rs, "status", "replicas")),
    int(field(rs, "status", "readyReplicas")),
    age(rs, ctx),
    ...templateCells(rs),
  ],
);

export const statefulSetPrinter = printer(
  [nameColumn(), column("Ready", "string", 0, "Number of the pod with ready state"), ageColumn(), ...wide()],
  (s, ctx) => [
    s.metadata?.name,
    `${int(field(s, "status", "readyReplicas"))}/${int(field(s, "spec", "replicas") ?? 1)}`,
    age(s, ctx),
    ...templateCells(s, false),
  ],
);

export const daemonSetPrinter = printer(
  [
    nameColumn(),
    column("Desired", "integer", 0, "The total number of nodes that should be running the daemon pod."),
    column("Current", "integer", 0, "The number of nodes that are running at least 1 daemon pod."),
    column(
      "Ready",
      "integer",
      0,
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
    ),
    column("Up-to-date", "integer", 0, "The total number of nodes that are running updated daemon pod"),
    column(
      "Available",
      "integer",
      0,
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.",
    ),
    column("Node Selector", "string", 0, "NodeSelector is a selector which must be true for the pod to fit on a node."),
    ageColumn(),
    ...wide(),
    selectorColumn(),
  ],
  (ds, ctx) => [
    ds.metadata?.name,
    int(field(ds, "status", "desiredNumberScheduled")),
    int(field(ds, "status", "currentNumberScheduled")),
    int(field(ds, "status", "numberReady")),
    int(field(ds, "status", "updatedNumberScheduled")),
    int(field(ds, "status", "numberAvailable")),
    formatLabels(field(ds, "spec", "template", "spec", "nodeSelector")),
    age(ds, ctx),
    ...templateCells(ds),
  ],
);

/** Job STATUS exists from 1.30 (kubernetes/kubernetes#123226). */
const jobColumns = (version: ServerVersion): TableColumn[] => [
  nameColumn(),
  ...(version.minor >= 30 ? [column("Status", "string", 0, "Status of the job.")] : []),
  column("Completions", "string", 0, "The completion status of the job."),
  column("Duration", "string", 0, "Time required to complete the job."),
  ageColumn(),
  ...wide(),
  selectorColumn(),
];

function conditionTrue(object: KubeObject, type: string): boolean {
  return ((field(object, "status", "conditions") ?? []) as Array<{ type: string; status: string }>).some(
    (c) => c.type === type && c.status === "True",
  );
}

export function jobStatus(job: KubeObject): string {
  if (conditionTrue(job, "Complete")) return "Complete";
  if (conditionTrue(job, "Failed")) return "Failed";
  if (job.metadata?.deletionTimestamp) return "Terminating";
  if (conditionTrue(job, "Suspended")) return "Suspended";
  if (conditionTrue(job, "FailureTarget")) return "FailureTarget";
  if (conditionTrue(job, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

export const jobPrinter: TablePrinter = {
  columns: jobColumns,
  row: (job: KubeObject, ctx: PrintContext) => {
    const succeeded = int(field(job, "status", "succeeded"));
    const completions = field(job, "spec", "completions");
    const parallelism = int(field(job, "spec", "parallelism") ?? 1);
    let completionsCell = `${succeeded}/1`;
    if (typeof completions === "number") completionsCell = `${succeeded}/${completions}`;
    else if (parallelism > 1) completionsCell = `${succeeded}/1 of ${parallelism}`;
    const start = Date.parse(field(job, "status", "startTime") ?? "");
    const end = Date.parse(field(job, "status", "completionTime") ?? "");
    let duration = "";
    if (!Number.isNaN(start)) duration = humanDuration((Number.isNaN(end) ? ctx.now.getTime() : end) - start);
    const cells = [job.metadata?.name];
    if (ctx.version.minor >= 30) cells.push(jobStatus(job));
    cells.push(completionsCell, duration, age(job, ctx), ...(templateCells(job) as string[]));
    return { cells };
  },
};

export const cronJobPrinter = printer(
  [
    nameColumn(),
    column("Schedule", "string", 0, "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
    column(
      "Timezone",
      "string",
      0,
      "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.",
    ),
    column("Suspend", "boolean", 0, "This flag tells the controller to suspend subsequent executions."),
    column("Active", "integer", 0, "A list of pointers to currently running jobs."),
    column("Last Schedule", "string", 0, "Information when was the last time the job was successfully scheduled."),
    ageColumn(),
    ...wide(),
    selectorColumn(),
  ],
  (cj, ctx) => {
    const suspend = field(cj, "spec", "suspend");
    const last = field(cj, "status", "lastScheduleTime");
    const [containers, images] = containerCells(field(cj, "spec", "jobTemplate", "spec", "template", "spec"));
    return [
      cj.metadata?.name,
      field(cj, "spec", "schedule") ?? "",
      field(cj, "spec", "timeZone") || "<none>",
      typeof suspend === "boolean" ? (suspend ? "True" : "False") : "<unset>",
      ((field(cj, "status", "active") ?? []) as unknown[]).length,
      last ? since(last, ctx.now) : "<none>",
      age(cj, ctx),
      containers,
      images,
      formatLabelSelector(field(cj, "spec", "jobTemplate", "spec", "selector")),
    ];
  },
);
