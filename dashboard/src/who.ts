/**
 * Who made a write, as the dashboard shows it (docs/who.md): the person and the role they assumed, or why nobody is
 * named; the details (verb, time, the client's claim, the source address) in the cell's tooltip. Plain strings:
 * preact renders them as text, so a session name holding markup stays text. Pure (test/dashboard/who-view.test.ts).
 */
import type { ShownWho } from "../../shared/who/shown.ts";

/** `alice@example.com (Admin)`, `pending`, `not found`, `audit logs are off for demo-us`; empty when none is kept. */
export function whoText(who: ShownWho | undefined): string {
  if (!who) return "";
  if (who.state !== "found") return visible(who.note);
  return visible(who.role ? `${who.name} (${who.role})` : who.name);
}

/**
 * Control characters made visible: ESC as `^[` and others as `?`, as the terminal's table does, but tab and newline
 * as a space. The text stays one line.
 */
function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters replaced
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === "\u001b" ? "^[" : c === "\t" || c === "\n" ? " " : "?"));
}

/** `create at 2026-12-02T15:00:00Z · client says Helm/4.1.0 · from 203.0.113.7`: the user agent is a claim. */
export function whoTitle(who: ShownWho | undefined): string | undefined {
  if (who?.state !== "found") return undefined;
  return [
    `${who.verb} at ${who.at}`,
    who.userAgent ? `client says ${who.userAgent}` : "",
    who.sourceIp ? `from ${who.sourceIp}` : "",
  ]
    .filter(Boolean)
    .map(visible)
    .join(" · ");
}
