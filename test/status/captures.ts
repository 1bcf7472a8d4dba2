/**
 * Reports built from the helm v4.1.4 captures in test/fixtures/helm-v4-captures (copied from the reference captures):
 * the release fields come from the capture's JSON, the Table cells from the
 * capture's own text (split on the 3-space padding), so rendering them back
 * must give the capture's layout.
 */
import { readFileSync } from "node:fs";
import type { FetchResult, ReadOutcome } from "../../shared/kube/fetch.ts";
import type { Table, TableColumn } from "../../shared/kube/table.ts";
import { parseManifest } from "../../shared/manifest/manifest.ts";
import type { Release } from "../../shared/release/model.ts";
import { buildStatusReport } from "../../shared/status/build-report.ts";
import type { StatusReport } from "../../shared/status/report.ts";

export const CAPTURES = new URL("../fixtures/helm-v4-captures/", import.meta.url);

export function capture(name: string): string {
  return readFileSync(new URL(name, CAPTURES), "utf8");
}

export interface CapturedGroup {
  key: string;
  header: string[];
  rows: string[][];
}

/** The `==> key` groups of a capture's RESOURCES section, cells split on the printer's padding. */
export function capturedGroups(text: string): CapturedGroup[] {
  const lines = text.split("\n");
  const start = lines.indexOf("RESOURCES:");
  if (start < 0) return [];
  const groups: CapturedGroup[] = [];
  let current: CapturedGroup | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("==> ")) {
      current = { key: line.slice(4), header: [], rows: [] };
      groups.push(current);
    } else if (line === "") {
      if (!current) break;
      current = undefined;
    } else if (current) {
      const cells = line.split(/ {3,}/);
      if (current.header.length === 0 && cells.every((cell) => cell === cell.toUpperCase())) current.header = cells;
      else current.rows.push(cells);
    } else {
      break;
    }
  }
  return groups;
}

export function columnsOf(header: string[]): TableColumn[] {
  return header.map((name, i) => ({
    name: name.charAt(0) + name.slice(1).toLowerCase(),
    type: "string",
    format: i === 0 ? "name" : undefined,
    priority: 0,
  }));
}

/** A wide (priority 1) column too, to prove it is never printed. */
const WIDE: TableColumn = { name: "Containers", type: "string", priority: 1 };

export function tableOf(
  group: CapturedGroup,
  rows: string[][],
  objects: (Record<string, unknown> | undefined)[] = [],
): Table {
  return {
    columns: [...columnsOf(group.header), WIDE],
    rows: rows.map((cells, i) => ({ cells: [...cells, "secret-wide-cell"], object: objects[i] })),
  };
}

export interface CaptureScenario {
  release: Release;
  /** Objects by `Kind/name`; defaults to a bare object with that kind and name. */
  live?: Record<string, Record<string, unknown>>;
  /** `Kind/name` -> outcome for resources that must not be found. */
  outcomes?: Record<string, ReadOutcome>;
  /** Related-pods groups in selector order: the pod rows of each. */
  relatedRows?: string[][][];
  observedAt?: Date;
}

/** Builds the report the use case would, from a capture's text and a release record. */
export function reportFromCapture(text: string, scenario: CaptureScenario): StatusReport {
  const groups = capturedGroups(text);
  const { objects, problems } = parseManifest(scenario.release.manifest);
  const rowsByName = new Map<string, { group: CapturedGroup; cells: string[] }>();
  for (const group of groups) {
    for (const cells of group.rows) rowsByName.set(`${group.key.split("/")[1]}/${cells[0]}`, { group, cells });
  }
  const resources: FetchResult["resources"] = objects.map((object) => {
    const id = `${object.kind}/${object.name}`;
    const outcome = scenario.outcomes?.[id];
    if (outcome) return { object, namespace: "default", outcome, message: outcome.replace(/-/g, " ") };
    const row = rowsByName.get(id);
    if (!row) throw new Error(`capture has no row for ${id}`);
    const live = scenario.live?.[id] ?? {
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: { name: object.name },
    };
    return { object, namespace: "default", outcome: "found", table: tableOf(row.group, [row.cells], [live]) };
  });
  const podGroup = groups.find((group) => group.key === "v1/Pod(related)");
  const related: FetchResult["related"] = (scenario.relatedRows ?? []).map((rows, i) => ({
    namespace: "default",
    selector: { "app.kubernetes.io/name": `selector-${i}` },
    owners: [],
    outcome: "found",
    table: tableOf(podGroup ?? { key: "", header: ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], rows: [] }, rows),
  }));
  return buildStatusReport({
    release: scenario.release,
    cluster: "demo-cluster",
    observedAt: scenario.observedAt ?? new Date("2026-12-02T15:41:00Z"),
    objects,
    problems,
    fetched: { resources, related, counters: { requests: 0, retries: 0, maxInFlight: 0, reauthentications: 0 } },
    durationMs: 0,
  });
}

/** The demo release exactly as `helm status demo -o json` printed it (chart metadata added back). */
export function demoRelease(): Release {
  const json = JSON.parse(capture("helm-status-output-demo.json"));
  return {
    name: json.name,
    namespace: json.namespace,
    version: json.version,
    info: { ...json.info, resources: undefined },
    chart: { metadata: { name: "demo", version: "0.1.0", appVersion: "1.16.0" } },
    config: { replicaCount: 1, secretValue: "config-value-never-shown" },
    manifest: json.manifest,
    hooks: json.hooks,
    apply_method: json.apply_method,
  };
}

/** Live objects of the demo capture's JSON, by `Kind/name`. */
export function demoLiveObjects(): Record<string, Record<string, unknown>> {
  const json = JSON.parse(capture("helm-status-output-demo.json"));
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, list] of Object.entries(json.info.resources as Record<string, Record<string, unknown>[]>)) {
    if (key.endsWith("(related)")) continue;
    for (const object of list) out[`${object.kind}/${(object.metadata as { name: string }).name}`] = object;
  }
  return out;
}

/** Removes the product's HEALTH line (the one deliberate addition to the header block). */
export function withoutHealthLine(text: string): string {
  return text.replace(/^HEALTH: .*\n/m, "");
}

/** The demo capture as a report whose Service was not found (a MISSING row, a HEALTH section), its pods as captured. */
export function demoReportWithMissingService(): StatusReport {
  const text = capture("helm-status-output-demo.txt");
  return reportFromCapture(text, {
    release: demoRelease(),
    live: demoLiveObjects(),
    outcomes: { "Service/demo": "not-found" },
    relatedRows: [capturedGroups(text).find((group) => group.key === "v1/Pod(related)")!.rows],
  });
}
