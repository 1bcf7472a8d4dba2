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

/** The most text one Teams message carries (teams-card.ts cuts a longer one, with a note where to read the rest). */
export const TEAMS_MAX_TEXT = 20_000;

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
  /** Rows the caller already left out: counted in the summary. */
  omitted = 0,
): FittedCode | undefined {
  const render = (lines: readonly string[], tail: string) =>
    `${title}\n\`\`\`\n${[...(header === undefined ? [] : [escapeCode(header)]), ...lines].join("\n")}\n\`\`\`${tail}`;
  const escaped = rows.map(escapeCode);
  const whole = render(escaped, "");
  if (whole.length <= max && omitted === 0) return { text: whole, shown: rows.length, hidden: 0 };
  const order = keep === "first" ? escaped : [...escaped].reverse();
  const picked: string[] = [];
  // Room for the summary line of the rows left out.
  let size = render([], `\n${summary(rows.length + omitted)}`).length;
  for (const row of order) {
    if (size + row.length + 1 > max) break;
    picked.push(row);
    size += row.length + 1;
  }
  if (size > max) return undefined;
  const hidden = rows.length - picked.length + omitted;
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

/**
 * What is wrong with a Block Kit message against Slack's limits (empty when
 * nothing): the loopback receiver of `npm start` and the tests check every
 * message the product posts with it, as Slack would refuse it.
 */
export function slackLimitViolations(message: unknown): string[] {
  const problems: string[] = [];
  const m = message as { text?: unknown; blocks?: unknown };
  if (!m || typeof m !== "object") return ["the message is not an object"];
  if (typeof m.text !== "string" || m.text.length === 0) problems.push("no fallback text");
  else if (m.text.length > 40_000) problems.push(`text is ${m.text.length} characters (Slack truncates at 40,000)`);
  const blocks = (m.blocks ?? []) as Array<Record<string, unknown>>;
  if (!Array.isArray(blocks)) return [...problems, "blocks is not a list"];
  if (blocks.length > SLACK_LIMITS.blocks) problems.push(`${blocks.length} blocks (at most ${SLACK_LIMITS.blocks})`);
  let total = 0;
  const text = (where: string, t: unknown, max: number): void => {
    const value = (t as { text?: unknown })?.text;
    if (typeof value !== "string" || value.length === 0) {
      problems.push(`${where}: empty text`);
      return;
    }
    total += value.length;
    if (value.length > max) problems.push(`${where}: ${value.length} characters (at most ${max})`);
  };
  blocks.forEach((block, i) => {
    const where = `block ${i} (${String(block.type)})`;
    switch (block.type) {
      case "header":
        text(where, block.text, SLACK_LIMITS.header);
        break;
      case "section": {
        if (block.text !== undefined) text(where, block.text, SLACK_LIMITS.text);
        const fields = (block.fields ?? []) as unknown[];
        if (fields.length > SLACK_LIMITS.fields) problems.push(`${where}: ${fields.length} fields (at most 10)`);
        fields.forEach((f, j) => {
          text(`${where} field ${j}`, f, SLACK_LIMITS.field);
        });
        if (block.text === undefined && fields.length === 0) problems.push(`${where}: neither text nor fields`);
        break;
      }
      case "context": {
        const elements = (block.elements ?? []) as unknown[];
        if (elements.length === 0 || elements.length > SLACK_LIMITS.contextElements) {
          problems.push(`${where}: ${elements.length} elements (1 to 10)`);
        }
        elements.forEach((e, j) => {
          text(`${where} element ${j}`, e, SLACK_LIMITS.text);
        });
        break;
      }
      case "actions": {
        const elements = (block.elements ?? []) as Array<{
          text?: { text?: string };
          value?: string;
          action_id?: string;
        }>;
        if (elements.length === 0 || elements.length > 25)
          problems.push(`${where}: ${elements.length} elements (1 to 25)`);
        for (const e of elements) {
          if ((e.text?.text?.length ?? 0) > SLACK_LIMITS.buttonText) problems.push(`${where}: button text over 75`);
          if ((e.value?.length ?? 0) > SLACK_LIMITS.buttonValue) problems.push(`${where}: button value over 2000`);
          if (!e.action_id || e.action_id.length > 255) problems.push(`${where}: bad action_id`);
        }
        break;
      }
      case "divider":
        break;
      default:
        problems.push(`${where}: unexpected block type`);
    }
  });
  if (total > SLACK_LIMITS.total) problems.push(`${total} characters in all blocks (kept under ${SLACK_LIMITS.total})`);
  return problems;
}
