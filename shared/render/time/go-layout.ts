/**
 * Go's time.Format for a layout (helm list --time-format "2006-01-02 15:04:05Z0700"), on the
 * wall clock and offset stored in the release (as Helm prints them). A port of nextStdChunk:
 * the same reference-time tokens, longest match first, anything else copied as is.
 */
import { parseRfc3339, type WallClock } from "./helm-time.ts";

const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Zone tokens, longest first where one is a prefix of another. */
const ZONE_TOKENS = [
  "-070000",
  "-07:00:00",
  "-0700",
  "-07:00",
  "-07",
  "Z070000",
  "Z07:00:00",
  "Z0700",
  "Z07:00",
  "Z07",
];

const pad = (n: number, width = 2, fill = "0") => String(n).padStart(width, fill);

function dayOfYear(t: WallClock): number {
  const at = (month: number, day: number) => new Date(0).setUTCFullYear(t.year, month, day);
  return Math.round((at(t.month - 1, t.day) - at(0, 1)) / 86_400_000) + 1;
}

/** The token at `i`, Go's rules included (`Jan` not before a lower-case letter, `01`..`05` digits). */
function tokenAt(layout: string, i: number): string | undefined {
  const rest = layout.slice(i);
  if (rest.startsWith("Monday")) return "Monday";
  if (rest.startsWith("Mon") && !/^[a-z]/.test(rest.slice(3))) return "Mon";
  if (rest.startsWith("January")) return "January";
  if (rest.startsWith("Jan") && !/^[a-z]/.test(rest.slice(3))) return "Jan";
  if (rest.startsWith("MST")) return "MST";
  if (rest.startsWith("2006")) return "2006";
  if (rest.startsWith("002")) return "002";
  if (/^0[1-6]/.test(rest)) return rest.slice(0, 2);
  if (rest.startsWith("15")) return "15";
  if (rest.startsWith("__2")) return "__2";
  if (rest.startsWith("_2") && !rest.startsWith("_2006")) return "_2";
  if (/^[12345]/.test(rest)) return rest[0];
  if (rest.startsWith("PM")) return "PM";
  if (rest.startsWith("pm")) return "pm";
  for (const zone of ZONE_TOKENS) {
    if (rest.startsWith(zone)) return zone;
  }
  // Fractional seconds: a '.' or ',' then 0s or 9s, not followed by another digit.
  const fraction = /^[.,](0+|9+)(?![0-9])/.exec(rest);
  if (fraction) return fraction[0];
  return undefined;
}

function zoneText(offset: string, token: string): string {
  const utc = offset === "Z";
  if (token.startsWith("Z") && utc) return "Z";
  const sign = utc ? "+" : offset[0];
  const hh = utc ? "00" : offset.slice(1, 3);
  const mm = utc ? "00" : offset.slice(4, 6);
  const colon = token.includes(":");
  if (token.endsWith("07")) return `${sign}${hh}`;
  if (token.endsWith("0000") || token.endsWith("00:00")) return colon ? `${sign}${hh}:${mm}:00` : `${sign}${hh}${mm}00`;
  return colon ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
}

export function formatGoLayout(value: string, layout: string): string {
  const t = parseRfc3339(value);
  if (!t) return value;
  let out = "";
  for (let i = 0; i < layout.length; ) {
    const token = tokenAt(layout, i);
    if (token === undefined) {
      out += layout[i];
      i++;
      continue;
    }
    out += render(t, token);
    i += token.length;
  }
  return out;
}

/** Go's word tokens (stdLongMonth, stdMonth, stdLongWeekDay, stdWeekDay, stdTZ, stdPM, stdpm). */
const WORDS: Record<string, (t: WallClock) => string> = {
  January: (t) => LONG_MONTHS[t.month - 1],
  Jan: (t) => LONG_MONTHS[t.month - 1].slice(0, 3),
  Monday: (t) => LONG_DAYS[t.weekday],
  Mon: (t) => LONG_DAYS[t.weekday].slice(0, 3),
  MST: (t) =>
    t.offset === "Z" || t.offset === "+00:00" || t.offset === "-00:00" ? "UTC" : zoneText(t.offset, "-0700"),
  PM: (t) => (t.hour >= 12 ? "PM" : "AM"),
  pm: (t) => (t.hour >= 12 ? "pm" : "am"),
};

const hour12 = (t: WallClock) => (t.hour % 12 === 0 ? 12 : t.hour % 12);

/** Go's number tokens: the field and how it is padded (`01` zeros to 2, `_2` spaces to 2, `1` not at all). */
const NUMBERS: Record<string, [field: (t: WallClock) => number, width: number, fill?: string]> = {
  "01": [(t) => t.month, 2],
  "1": [(t) => t.month, 0],
  "02": [(t) => t.day, 2],
  _2: [(t) => t.day, 2, " "],
  "2": [(t) => t.day, 0],
  __2: [dayOfYear, 3, " "],
  "002": [dayOfYear, 3],
  "2006": [(t) => t.year, 4],
  "06": [(t) => t.year % 100, 2],
  "15": [(t) => t.hour, 2],
  "03": [hour12, 2],
  "3": [hour12, 0],
  "04": [(t) => t.minute, 2],
  "4": [(t) => t.minute, 0],
  "05": [(t) => t.second, 2],
  "5": [(t) => t.second, 0],
};

function render(t: WallClock, token: string): string {
  const word = WORDS[token];
  if (word) return word(t);
  const number = NUMBERS[token];
  if (number) return pad(number[0](t), number[1], number[2]);
  if (token.startsWith("-") || token.startsWith("Z")) return zoneText(t.offset, token);
  // .000 keeps that many digits; .999 the same but drops trailing zeros (and the dot when none are left).
  const digits = t.fraction.padEnd(9, "0").slice(0, token.length - 1);
  if (token[1] === "0") return `${token[0]}${digits}`;
  const trimmed = digits.replace(/0+$/, "");
  return trimmed ? `${token[0]}${trimmed}` : "";
}
