/**
 * Times as people write them in a query or a flag, read strictly (issue #39 item 11): JavaScript's Date parser
 * rolls an impossible date over (`2026-02-30` is March 2, `T24:00` the next day), so a caller asking about a
 * day that does not exist would get an answer about another one. Here it is no time at all, and the caller's
 * parser says so (a 400 naming the parameter).
 */

/** RFC 3339 as the API documents it: a date, or a date and time (seconds and fraction optional) with Z or an offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):(\d{2})))?$/;

/** The moment `value` names, or undefined when it is not RFC 3339 or names a date or time the calendar lacks. */
export function parseCalendarTime(value: string): Date | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, year, month, day, hour = "0", minute = "0", second = "0", , , offsetHours = "0", offsetMinutes = "0"] = m;
  if (!isCalendarDateTime(+year, +month, +day, +hour, +minute, +second)) return undefined;
  if (+offsetHours > 23 || +offsetMinutes > 59) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** True when the fields name a real UTC date and time (month 1-12, the month's own days, 00:00:00-23:59:59). */
export function isCalendarDateTime(year: number, month: number, day: number, hour = 0, minute = 0, second = 0) {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  // Day 0 of the next month is this month's last day.
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
