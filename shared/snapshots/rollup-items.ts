/**
 * The rollups as stored: one item per UTC day and cluster (docs/history.md "Rollups"), its figures as numeric
 * attributes that audits ADD to. The names say what a number is of:
 *
 *   t|<code>                  the cluster's total (codes: FIELD_CODES below, one letter per ROLLUP_FIELDS entry)
 *   n|<namespace>|<code>      one namespace's total (only the fields that were ever added)
 *   w|<namespace>|<name>      a release's time not in Current (only releases that had some): the worst list
 *
 * Short codes, and no time in Current (it is the covered time less the other healths'), because every message's
 * UpdateItem is billed on the whole item's size: a healthy namespace costs two numbers a day.
 *
 * One audit message (one cluster) adds to one item per day it touched, in the transaction that records the
 * message as done, so a redelivered message adds nothing twice.
 */
import { HEALTH_STATUSES, type HealthStatus } from "../health/index.ts";
import type { ReleaseKey } from "../release/model.ts";
import { emptyTotals, type ReliabilityTotals } from "./reliability.ts";
import type { RollupField, SightingFigures } from "./rollup.ts";

/** One day of one cluster: attribute name -> number (also what a message adds). */
export interface RollupDay {
  day: string;
  cluster: string;
  values: Record<string, number>;
}

const ATTRIBUTE = /^[tnw]\|/;

/** One letter per figure (docs/history.md "Rollups" lists them). */
export const FIELD_CODES: Record<RollupField, string> = {
  covered: "c",
  Current: "C",
  InProgress: "P",
  Failed: "F",
  Unknown: "U",
  NotFound: "N",
  Terminating: "T",
  incidents: "i",
  recovered: "r",
  recoveryMs: "m",
  flaps: "f",
  deploys: "d",
  failedDeploys: "x",
  pendingDeploys: "p",
  releases: "n",
};
const FIELD_OF = new Map(Object.entries(FIELD_CODES).map(([field, code]) => [code, field as RollupField]));

export const isRollupAttribute = (name: string) => ATTRIBUTE.test(name);

/** What one message's sightings add, per day (zero sums left out). */
export function rollupAdds(
  cluster: string,
  sightings: readonly { release: ReleaseKey; figures: SightingFigures }[],
): RollupDay[] {
  const byDay = new Map<string, Record<string, number>>();
  const add = (day: string, name: string, value: number) => {
    const values = byDay.get(day) ?? {};
    values[name] = (values[name] ?? 0) + value;
    byDay.set(day, values);
  };
  for (const { release, figures } of sightings) {
    for (const [day, fields] of figures.days) {
      for (const [field, value] of Object.entries(fields) as [RollupField, number][]) {
        if (field === "Current") continue;
        add(day, `t|${FIELD_CODES[field]}`, value);
        add(day, `n|${release.namespace}|${FIELD_CODES[field]}`, value);
      }
    }
    for (const [day, ms] of figures.unhealthyMs) add(day, `w|${release.namespace}|${release.name}`, ms);
  }
  return [...byDay].map(([day, values]) => ({
    day,
    cluster,
    values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== 0)),
  }));
}

/** Which namespaces of a cluster a report adds up: all ("*", the cluster's totals) or some. */
export type NamespaceFilter = (cluster: string) => "*" | ReadonlySet<string>;

export interface RollupSums {
  /** windowMs is left 0: the caller knows the window. */
  totals: ReliabilityTotals;
  /** Releases seen per day (the most in one day is the report's release count). */
  releasesPerDay: Map<string, number>;
  /** Time not in Current per release (`cluster/namespace/name`). */
  unhealthyMs: Map<string, { release: ReleaseKey; ms: number }>;
}

const HEALTHS = new Set<string>(HEALTH_STATUSES);

/** The day items added up for the namespaces in scope. */
export function sumRollups(items: readonly RollupDay[], namespaces: NamespaceFilter): RollupSums {
  const totals = emptyTotals();
  const releasesPerDay = new Map<string, number>();
  const unhealthyMs = new Map<string, { release: ReleaseKey; ms: number }>();
  const addField = (day: string, code: string, value: number) => {
    const field = FIELD_OF.get(code);
    if (field === "releases") releasesPerDay.set(day, (releasesPerDay.get(day) ?? 0) + value);
    else if (field) addToTotals(totals, field, value);
  };
  for (const item of items) {
    const scope = namespaces(item.cluster);
    for (const [name, value] of Object.entries(item.values)) {
      if (typeof value !== "number" || !Number.isFinite(value)) continue;
      const [kind, first, second] = name.split("|");
      if (kind === "t" && scope === "*") addField(item.day, first, value);
      else if (kind === "n" && scope !== "*" && scope.has(first) && second) addField(item.day, second, value);
      else if (kind === "w" && second && (scope === "*" || scope.has(first))) {
        const key = `${item.cluster}/${first}/${second}`;
        const release = { cluster: item.cluster, namespace: first, name: second };
        unhealthyMs.set(key, { release, ms: (unhealthyMs.get(key)?.ms ?? 0) + value });
      }
    }
  }
  totals.timeInHealthMs.Current =
    totals.coveredMs - HEALTH_STATUSES.reduce((sum, h) => (h === "Current" ? sum : sum + totals.timeInHealthMs[h]), 0);
  return { totals, releasesPerDay, unhealthyMs };
}

function addToTotals(totals: ReliabilityTotals, field: RollupField, value: number): void {
  if (HEALTHS.has(field)) totals.timeInHealthMs[field as HealthStatus] += value;
  else if (field === "covered") totals.coveredMs += value;
  else if (field === "incidents") totals.incidents += value;
  else if (field === "recovered") totals.recovered += value;
  else if (field === "recoveryMs") totals.recoveryMs += value;
  else if (field === "flaps") totals.flaps += value;
  else if (field === "deploys") totals.deploys += value;
  else if (field === "failedDeploys") totals.failedDeploys += value;
  else if (field === "pendingDeploys") totals.pendingDeploys += value;
}
