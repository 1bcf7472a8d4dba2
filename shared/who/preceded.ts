/**
 * What preceded a change (docs/who.md): the attributed revisions and writes made between the last audit that saw
 * the release as it was and the first that saw it changed, for the health-change notification ("revision 5 by
 * ci-deployer 2 min before") and the snapshot diff. Pure: the caller reads the attributions (`readShownAttributions`).
 */
import type { AttributionSubject } from "./attribution.ts";
import type { ShownAttributions, WhoFound } from "./shown.ts";

/** An attributed revision or write and who made it. */
export interface PrecedingWrite {
  subject: AttributionSubject;
  who: WhoFound;
}

/** Said at most: a notification names the few latest, not every write of a busy hour. */
export const PRECEDING_SHOWN = 3;

/**
 * The found writes whose time is after `after` (the last time the old state was seen; absent: any) and at or
 * before `until` (when the change was first seen), newest first, at most `PRECEDING_SHOWN`.
 */
export function precedingWrites(shown: ShownAttributions, window: { after?: string; until: string }): PrecedingWrite[] {
  const until = Date.parse(window.until);
  const after = window.after === undefined ? Number.NEGATIVE_INFINITY : Date.parse(window.after);
  if (Number.isNaN(until) || Number.isNaN(after)) return [];
  return shown.found
    .filter(({ who }) => {
      const at = Date.parse(who.at);
      return at > after && at <= until;
    })
    .sort((a, b) => b.who.at.localeCompare(a.who.at))
    .slice(0, PRECEDING_SHOWN);
}

/** `revision 5 by ci-deployer 2 min before`, `kubectl-patch of ConfigMap web-settings by alice@example.com 30 s before`. */
export function precedingLine(write: PrecedingWrite, changeAt: string): string {
  const { subject, who } = write;
  const what =
    subject.type === "revision"
      ? `revision ${subject.revision}`
      : `${subject.manager} of ${subject.kind} ${subject.name}`;
  return `${what} by ${who.name} ${before(Date.parse(changeAt) - Date.parse(who.at))}`;
}

function before(ms: number): string {
  if (!Number.isFinite(ms) || ms < 60_000) return `${Math.max(0, Math.round(ms / 1000)) || 0} s before`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min before`;
  return `${Math.round(minutes / 60)} h before`;
}
