/** An availability objective as people write it (a `helm-status/slo` annotation, the registry's `slo`). */

export const OBJECTIVE_RULE = 'is not a percentage above 0 and below 100 (e.g. "99.5")';

/** "99.5" or 99.5 (a percentage, up to 4 decimals) as a share (0.995); undefined when it is not one. */
export function parseObjective(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const percent = /^\d{1,2}(\.\d{1,4})?$/.test(text) ? Number(text) : Number.NaN;
  return percent > 0 && percent < 100 ? Math.round(percent * 10_000) / 1_000_000 : undefined;
}
