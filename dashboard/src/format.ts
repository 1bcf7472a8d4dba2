/** Times and durations as people read them. */

export function ago(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "";
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  return `${duration(Math.abs(ms))}${ms < 0 ? " ahead" : " ago"}`;
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? ` ${s % 60}s` : ""}`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? ` ${m % 60}m` : ""}`;
  return `${Math.floor(h / 24)}d${h % 24 ? ` ${h % 24}h` : ""}`;
}

export function when(iso: string | undefined): string {
  if (!iso) return "";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at
    .toISOString()
    .replace("T", " ")
    .replace(/:\d\d\.\d+Z$/, "Z");
}

export const RANGES = ["1h", "6h", "24h", "7d", "30d", "90d"] as const;
export const DEFAULT_RANGE = "24h";
