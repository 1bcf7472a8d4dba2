/**
 * Helm's timestamp renderings, computed from the stored RFC 3339 string itself.
 *
 * Helm prints times in the UTC offset stored in the release JSON, not in the
 * viewer's time zone, so the wall-clock fields are taken as written: no Date
 * round trip (which would drop nanoseconds and the offset).
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export interface WallClock {
  year: number;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fraction digits as written (no padding), "" when absent. */
  fraction: string;
  /** "Z" or "+HH:MM" / "-HH:MM" as written. */
  offset: string;
  weekday: number; // 0 = Sunday
}

/** Parses an RFC 3339 timestamp into its wall-clock fields; undefined when malformed. */
export function parseRfc3339(value: string | undefined): WallClock | undefined {
  if (typeof value !== "string") return undefined;
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC silently rolls Feb 30 over to March: reject instead of printing a wrong day.
  if (date.getUTCDate() !== day || year < 1) return undefined;
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear keeps them (Go's zero time is year 1).
  date.setUTCFullYear(year, month - 1, day);
  return {
    year,
    month,
    day,
    hour,
    minute,
    second,
    fraction: match[7] ?? "",
    offset: match[8].toUpperCase() === "Z" ? "Z" : match[8],
    weekday: date.getUTCDay(),
  };
}

/** Go's zero time, which Helm prints for (and treats as) a time that is not set. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";

/** Go's zero time (`0001-01-01T00:00:00Z`), which Helm treats as "not set". */
export function isZeroTime(value: string | undefined): boolean {
  const t = parseRfc3339(value);
  return !t || (t.year === 1 && t.month === 1 && t.day === 1 && t.hour === 0 && t.minute === 0 && t.second === 0);
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/**
 * Go's `time.ANSIC` (`Mon Jan _2 15:04:05 2006`, day space-padded) in the stored
 * offset, as `helm status` (LAST DEPLOYED, TEST SUITE) and `helm history` print it.
 * A value that is not RFC 3339 is returned unchanged rather than failing a whole listing.
 */
export function formatAnsiC(value: string): string {
  const t = parseRfc3339(value);
  if (!t) return value;
  const day = String(t.day).padStart(2, " ");
  return `${WEEKDAYS[t.weekday]} ${MONTHS[t.month - 1]} ${day} ${pad2(t.hour)}:${pad2(t.minute)}:${pad2(t.second)} ${String(t.year).padStart(4, "0")}`;
}

/**
 * Go's `time.Time.String()` (`2006-01-02 15:04:05.999999999 -0700 MST`), what
 * `helm list` prints in UPDATED. Go names a parsed offset zone only when it is UTC
 * (or the host's zone, which a server cannot know); otherwise the name repeats the offset.
 */
export function formatGoTime(value: string): string {
  const t = parseRfc3339(value);
  if (!t) return value;
  const fraction = t.fraction.replace(/0+$/, "");
  const offset = t.offset === "Z" ? "+0000" : t.offset.replace(":", "");
  const zone = offset === "+0000" || offset === "-0000" ? "UTC" : offset;
  const date = `${String(t.year).padStart(4, "0")}-${pad2(t.month)}-${pad2(t.day)}`;
  const time = `${pad2(t.hour)}:${pad2(t.minute)}:${pad2(t.second)}${fraction ? `.${fraction}` : ""}`;
  return `${date} ${time} ${offset === "-0000" ? "+0000" : offset} ${zone}`;
}
