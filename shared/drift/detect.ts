import { compareObject, type Difference } from "./compare.ts";
import { type FieldOwner, ownersOf, readOwners } from "./managed-fields.ts";
import type { BenignOwner, DriftedField, DriftReport } from "./types.ts";

/**
 * Drift of a release: for each live object, the fields its manifest sets that differ live (compare.ts), and for
 * each, from managedFields, who made the last change and when, whether Helm still owns it and whether the next
 * server-side-apply upgrade conflicts (drift.md §3.2, §6). Pure.
 */

export interface DriftObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  manifest: Record<string, unknown>;
  live: Record<string, unknown>;
}

export interface DriftInput {
  objects: readonly DriftObject[];
  /** The release's `apply_method` ("ssa" | "csa"); an object with a Helm Apply entry counts as SSA too. */
  applyMethod?: string;
  /** Manager names that are Helm (default `helm`; SDK embedders use their binary's name). */
  helmManagers?: readonly string[];
  /**
   * Revisions stored after the one compared (a failed or pending upgrade of a still deployed revision):
   * Helm's writes to the live objects since then are theirs, not a foreign change.
   */
  laterRevisions?: readonly LaterRevision[];
}

export interface LaterRevision {
  version: number;
  status: string;
  /** RFC 3339: when Helm wrote it (info.last_deployed). */
  deployedAt?: string;
}

const VALUE_WIDTH = 60;

export function detectDrift(input: DriftInput): DriftReport {
  const helm = new Set(input.helmManagers ?? ["helm"]);
  const hpaTargets = new Set(
    input.objects.filter((o) => o.kind === "HorizontalPodAutoscaler").flatMap((o) => hpaTarget(o.manifest)),
  );
  const fields: DriftedField[] = [];
  // Server-side applied: the release says so, or Helm's Apply entry is on any of its objects (an object whose
  // every Helm-owned field was taken by others has none left).
  let ssa = input.applyMethod === "ssa";
  const found: Array<{ object: DriftObject; differences: Difference[] }> = [];
  const objects = oneDocumentPerObject(input.objects);
  for (const object of objects) {
    const managedFields = (object.live.metadata as Record<string, unknown> | undefined)?.managedFields;
    if (!ssa && Array.isArray(managedFields)) {
      ssa = managedFields.some((e) => helm.has((e as { manager?: string })?.manager ?? "") && e?.operation === "Apply");
    }
    const differences = object.differences;
    if (differences.length > 0) found.push({ object, differences });
  }
  for (const { object, differences } of found) {
    const metadata = (object.live.metadata ?? {}) as Record<string, unknown>;
    const owners = readOwners(metadata.managedFields);
    const targetedByHpa = hpaTargets.has(`${object.kind}/${object.name}`);
    for (const difference of differences) {
      fields.push(
        attribute(object, difference, owners, { helm, ssa, targetedByHpa, later: input.laterRevisions ?? [] }),
      );
    }
  }
  return {
    checked: objects.length,
    fields,
    conflicts: fields.filter((f) => f.conflicts).length,
    benign: fields.filter((f) => f.benign).length,
  };
}

/**
 * Each live object once, with its differences. A manifest may hold one resource twice (issue #39 item 16): helm 4
 * sends both documents, and which one the object holds depends on how it got there (an install keeps the first:
 * the second's create finds it, and creates of one kind run in parallel; an upgrade applies both in turn, the
 * second wins). Helm's own value is whichever document it holds: the one with the fewest differences is compared,
 * the later on a tie.
 */
function oneDocumentPerObject(objects: readonly DriftObject[]): Array<DriftObject & { differences: Difference[] }> {
  const byIdentity = new Map<string, DriftObject & { differences: Difference[] }>();
  for (const object of objects) {
    const group = object.apiVersion.includes("/") ? object.apiVersion.slice(0, object.apiVersion.indexOf("/")) : "";
    const key = `${group}|${object.kind}|${object.namespace ?? ""}|${object.name}`;
    const compared = { ...object, differences: compareObject(object) };
    const before = byIdentity.get(key);
    if (!before || compared.differences.length <= before.differences.length) byIdentity.set(key, compared);
  }
  return [...byIdentity.values()];
}

function attribute(
  object: DriftObject,
  difference: Difference,
  owners: readonly FieldOwner[],
  context: { helm: Set<string>; ssa: boolean; targetedByHpa: boolean; later: readonly LaterRevision[] },
): DriftedField {
  const owning = [difference.elements, ...(difference.alternates ?? [])].flatMap((path) => ownersOf(owners, path));
  const others = owning.filter((o) => !context.helm.has(o.manager));
  // The last change: the most recent non-Helm owner (an entry without a time counts as oldest).
  const last = [...others].sort((a, b) => (b.time ?? "").localeCompare(a.time ?? ""))[0];
  const helmOwns = owning.some((o) => context.helm.has(o.manager));
  const entry: DriftedField = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.name,
    ...(object.namespace ? { namespace: object.namespace } : {}),
    field: difference.field,
    ...(difference.secret ? {} : { release: display(difference.release, difference.live) }),
    live: difference.secret ? "<absent>" : display(difference.live, difference.release),
    secret: Boolean(difference.secret),
    helmOwns,
    conflicts: context.ssa && others.length > 0,
  };
  if (last) {
    entry.changedBy = last.manager;
    entry.operation = last.operation;
    if (last.subresource) entry.subresource = last.subresource;
    if (last.time) entry.changedAt = last.time;
    const benign = benignOwner(difference.field, last, context.targetedByHpa);
    if (benign) entry.benign = benign;
  } else if (helmOwns && context.later.length > 0) {
    // Helm's own later revision (a failed or pending upgrade) applied it: Helm's change, not a foreign one.
    const helmEntry = [...owning.filter((o) => context.helm.has(o.manager))].sort((a, b) =>
      (b.time ?? "").localeCompare(a.time ?? ""),
    )[0];
    const revision = writingRevision(context.later, helmEntry?.time);
    entry.changedBy = helmEntry.manager;
    entry.operation = helmEntry.operation;
    if (helmEntry.time) entry.changedAt = helmEntry.time;
    entry.helmRevision = revision.version;
    entry.note = `Helm's own write: revision ${revision.version} (${revision.status}), after this one`;
  } else if (difference.live === undefined) {
    entry.note =
      context.later.length > 0
        ? `removed; managedFields do not record who removes a field (Helm's later revision ${context.later.at(-1)!.version} may have)`
        : "removed; managedFields do not record who removes a field";
  } else if (helmOwns) {
    entry.note = "Helm still owns it: changed by a webhook or a write that kept no ownership";
  } else {
    entry.note = "no owner recorded (managedFields cleared, or a webhook/default)";
  }
  return entry;
}

/** The later revision whose write Helm's entry records: the last one deployed at or before its time, else the newest. */
function writingRevision(later: readonly LaterRevision[], time: string | undefined): LaterRevision {
  const byVersion = [...later].sort((a, b) => a.version - b.version);
  const written = time ? Date.parse(time) : Number.NaN;
  // managedFields times have whole seconds: a revision deployed within that second counts.
  const before = byVersion.filter((r) => r.deployedAt && Date.parse(r.deployedAt) < written + 1000);
  return before.at(-1) ?? byVersion.at(-1)!;
}

function benignOwner(field: string, owner: FieldOwner, targetedByHpa: boolean): BenignOwner | undefined {
  if (field === "spec.replicas") {
    const hpaWrite = owner.manager === "kube-controller-manager" && owner.subresource === "scale";
    if (hpaWrite || (targetedByHpa && owner.subresource === "scale")) return "HPA";
  }
  if (/\bvpa\b|vpa-/i.test(owner.manager) && /\.resources\b/.test(field)) return "VPA";
  return undefined;
}

function hpaTarget(manifest: Record<string, unknown>): string[] {
  const ref = (manifest.spec as { scaleTargetRef?: { kind?: unknown; name?: unknown } } | undefined)?.scaleTargetRef;
  return typeof ref?.kind === "string" && typeof ref.name === "string" ? [`${ref.kind}/${ref.name}`] : [];
}

/** A value for the RELEASE -> LIVE column; a numeric string is quoted when the other side is a number. */
function display(value: unknown, other: unknown): string {
  if (value === undefined || value === null) return "<absent>";
  let text: string;
  if (typeof value === "string") {
    // Quoted when empty, when a number is on the other side, or multi-line (kept on one line, escapes visible).
    const quote = value === "" || (typeof other === "number" && /^-?\d/.test(value)) || hasControl(value);
    text = quote ? JSON.stringify(value) : value;
  } else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  return text.length > VALUE_WIDTH ? `${text.slice(0, VALUE_WIDTH - 1)}…` : text;
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 32) return true;
  return false;
}
