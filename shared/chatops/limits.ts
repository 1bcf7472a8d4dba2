/**
 * Slack's message limits (docs.slack.dev reference/block-kit/blocks; node-slack-sdk
 * block-kit types) and the budget a message is built against. Everything user-
 * or cluster-provided is escaped here too: `&`, `<`, `>` are Slack's control
 * characters (`<!channel>` would ping a whole channel), and a fence inside a
 * code block would end it early.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  text: 3000,
  header: 150,
  fields: 10,
  field: 2000,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  /** Our cap on all block texts together: Slack rejects ~13.2k with msg_blocks_too_long (bolt-js#2509). */
  total: 12_000,
} as const;

export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Text for inside a ``` block: escaped, and no fence of its own. */
export function escapeCode(text: string): string {
  return escapeMrkdwn(text).replaceAll("```", "`\u200b`\u200b`");
}

/** Cuts to `max` characters with an ellipsis (for one-line texts: headers, fields, context). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

export interface FittedCode {
  text: string;
  shown: number;
  hidden: number;
}

/**
 * `title` + a code block of `header` and as many `rows` as fit in `max`
 * characters (whole lines only), then `summary(hidden)` after the block when
 * rows were left out. `keep: "last"` keeps the last rows (history: the newest).
 */
export function fitCode(
  title: string,
  header: string | undefined,
  rows: readonly string[],
  max: number,
  summary: (hidden: number) => string,
  keep: "first" | "last" = "first",
): FittedCode | undefined {
  const render = (lines: readonly string[], tail: string) =>
    `${title}\n\`\`\`\n${[...(header === undefined ? [] : [escapeCode(header)]), ...lines].join("\n")}\n\`\`\`${tail}`;
  const escaped = rows.map(escapeCode);
  const whole = render(escaped, "");
  if (whole.length <= max) return { text: whole, shown: rows.length, hidden: 0 };
  const order = keep === "first" ? escaped : [...escaped].reverse();
  const picked: string[] = [];
  // Room for the summary line of the rows left out.
  let size = render([], `\n${summary(rows.length)}`).length;
  for (const row of order) {
    if (size + row.length + 1 > max) break;
    picked.push(row);
    size += row.length + 1;
  }
  if (size > max) return undefined;
  const hidden = rows.length - picked.length;
  const lines = keep === "first" ? picked : picked.reverse();
  return { text: render(lines, `\n${summary(hidden)}`), shown: picked.length, hidden };
}

/** English plural of a Kubernetes kind: ConfigMaps, Ingresses, NetworkPolicies. */
export function pluralKind(kind: string, count: number): string {
  if (count === 1) return kind;
  if (/(s|x|ch|sh)$/.test(kind)) return `${kind}es`;
  if (/[^aeiou]y$/.test(kind)) return `${kind.slice(0, -1)}ies`;
  return `${kind}s`;
}
