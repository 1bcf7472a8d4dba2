/**
 * The release page's pieces without a browser: the header fields and tables from the status document (its
 * `groups`, so no text parsing), the one column shape, and `DataTable` rendered to preact's virtual DOM. The
 * document is the real renderer's (`statusDocument` over a captured helm v4 status).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { build } from "esbuild";
import { cellClass, statusFields, statusTables, whyView } from "../../dashboard/src/status-view.ts";
import { textColumns } from "../../dashboard/src/table.ts";
import { statusDocument } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { demoReportWithMissingService } from "../status/captures.ts";
import { ROOT } from "../support/local-start.ts";

function demo() {
  const report = demoReportWithMissingService();
  report.freshness = {
    state: "matches",
    storedRevision: 2,
    clusterRevision: 2,
    revision: 2,
    message: "revision 2 matches the cluster",
  };
  return { report, document: JSON.parse(JSON.stringify(statusDocument(report))) as ReturnType<typeof statusDocument> };
}

test("the header fields are the text's header lines, from the document's fields", () => {
  const { report, document } = demo();
  // The verdict's citation (shared/why/causes.ts verdictCause) is part of the HEALTH line in both.
  report.health.cause = document.health.cause = "Deployment demo: container demo CrashLoopBackOff, exit code 1";
  const fields = new Map(statusFields(document));
  const text = renderStatusText(report);
  for (const name of ["NAME", "NAMESPACE", "STATUS", "REVISION", "DESCRIPTION", "HEALTH", "STORED"]) {
    assert.ok(
      text.includes(`\n${name}: ${fields.get(name)}\n`) || text.startsWith(`${name}: ${fields.get(name)}\n`),
      name,
    );
  }
  assert.match(fields.get("HEALTH") ?? "", / because Deployment demo: container demo CrashLoopBackOff, exit code 1$/);
  assert.equal(fields.get("LAST DEPLOYED"), "2026-12-02 15:10Z");
  assert.equal(fields.get("READ")?.includes("partial"), false);
});

test("the tables are the text's sections in its order, captioned by Helm's group key as the document gives it", () => {
  const { report, document } = demo();
  const tables = statusTables(document);
  const sections = renderStatusText(report)
    .split("\n")
    .filter((line) => line.startsWith("==> "))
    .map((line) => line.slice(4));
  assert.deepEqual(
    tables.map((table) => table.caption),
    sections,
  );
  const pods = tables.find((table) => table.caption === "v1/Pod(related)")!;
  assert.deepEqual(pods.columns, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
  assert.deepEqual(pods.rows[1].slice(0, 3), ["demo-test-connection", "0/1", "Completed"]);
});

test("cells people scan for are marked: a bad pod status, a health verdict; other columns never", () => {
  assert.equal(cellClass("STATUS", "CrashLoopBackOff"), "bad");
  assert.equal(cellClass("STATUS", "InProgress"), "h-InProgress");
  assert.equal(cellClass("STATUS", "Running"), undefined);
  assert.equal(cellClass("MESSAGE", "Failed"), undefined);
  const [name, status] = textColumns(["NAME", "STATUS"]);
  assert.equal(name.cell(["api-0", "Error"]), "api-0");
  assert.equal(status.cellClass?.(["api-0", "Error"]), "bad");
  assert.equal(status.cell(["short row"]), "", "a row shorter than its header is padded, not undefined");
});

/** preact's virtual DOM of a component, as plain objects: `{ type, props: { children } }`. */
type VNode = { type: unknown; props: Record<string, unknown> & { children?: unknown } } | string | number | null;

function all(node: unknown, tag: string): VNode[] {
  if (node === null || typeof node !== "object") return [];
  if (Array.isArray(node)) return node.flatMap((child) => all(child, tag));
  const vnode = node as Exclude<VNode, string | number | null>;
  return [...(vnode.type === tag ? [vnode] : []), ...all(vnode.props?.children, tag)];
}

function textOf(node: unknown): string {
  if (node === null || node === undefined || typeof node === "boolean") return "";
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  return textOf((node as { props?: { children?: unknown } }).props?.children);
}

test("DataTable: a caption, one header cell per column, one row per item with its key, class and tooltip", async () => {
  // Bundled as the dashboard's build does (esbuild, preact's automatic JSX), then imported: no browser.
  const bundle = await build({
    entryPoints: [join(ROOT, "dashboard/src/data-table.tsx")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "silent",
  });
  const source = bundle.outputFiles[0].text;
  const { DataTable } = (await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`)) as {
    DataTable: (props: Record<string, unknown>) => unknown;
  };
  const rows = [
    { name: "api", failed: 2, at: "2026-12-02T10:00:00Z" },
    { name: "web", failed: 0, at: "2026-12-02T11:00:00Z" },
  ];
  const tree = DataTable({
    caption: "runs",
    class: "runs",
    columns: [
      { title: "Name", cell: (r: (typeof rows)[0]) => r.name, cellTitle: (r: (typeof rows)[0]) => r.at },
      {
        title: "Failed",
        cell: (r: (typeof rows)[0]) => r.failed,
        cellClass: (r: (typeof rows)[0]) => (r.failed ? "bad" : undefined),
      },
    ],
    rows,
    rowKey: (r: (typeof rows)[0]) => r.name,
    rowClass: (r: (typeof rows)[0]) => (r.failed ? "failed-run" : undefined),
  });
  assert.equal(textOf(all(tree, "caption")), "runs");
  assert.equal((all(tree, "table")[0] as { props: { class?: string } }).props.class, "runs");
  assert.deepEqual(all(tree, "th").map(textOf), ["Name", "Failed"]);
  const trs = all(all(tree, "tbody"), "tr") as { key?: unknown; props: { class?: string; children?: unknown } }[];
  assert.deepEqual(
    trs.map((tr) => tr.key),
    ["api", "web"],
  );
  assert.deepEqual(
    trs.map((tr) => tr.props.class),
    ["failed-run", undefined],
  );
  assert.deepEqual(
    trs.map((tr) => all(tr.props.children, "td").map(textOf)),
    [
      ["api", "2"],
      ["web", "0"],
    ],
  );
  const first = all(trs[0].props.children, "td") as { props: { class?: string; title?: string } }[];
  assert.deepEqual([first[0].props.title, first[1].props.class], ["2026-12-02T10:00:00Z", "bad"]);
  const empty = DataTable({ columns: [{ title: "X", cell: () => "" }], rows: [], rowKey: () => 0 });
  assert.equal(all(empty, "caption").length, 0, "no caption element without a caption");
  assert.equal(all(empty, "td").length, 0);
});

test("why first: the cause chains, the events as the text prints them, the log excerpts; not again among the tables", () => {
  const { report } = demo();
  report.causes = [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "api",
      health: "Failed",
      pods: [],
      podsWithProblems: 1,
      text: "Deployment api Failed → pod api-1 → container api CrashLoopBackOff, exit code 1",
      log: { container: "api", previous: true, lines: ["panic: x"], truncated: false },
    },
  ];
  report.events = {
    items: [
      {
        type: "Warning",
        reason: "BackOff",
        message: "Back-off restarting failed container",
        object: { kind: "Pod", name: "api-1", uid: "u" },
        count: 3,
        firstSeen: "2026-12-02T15:00:00Z",
        lastSeen: "2026-12-02T15:05:00Z",
      },
    ],
  };
  const document = JSON.parse(JSON.stringify(statusDocument(report))) as ReturnType<typeof statusDocument>;
  const view = whyView(document);
  assert.deepEqual(view.causes, ["Deployment api Failed → pod api-1 → container api CrashLoopBackOff, exit code 1"]);
  assert.deepEqual(view.events?.columns, ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
  assert.deepEqual(view.events?.rows[0].slice(1, 4), ["Warning", "BackOff", "Pod/api-1"]);
  assert.deepEqual(view.logs, [{ caption: "api/api (previous instance)", lines: ["panic: x"] }]);
  const captions = statusTables(document).map((table) => table.caption);
  assert.ok(!captions.includes("WHY") && !captions.includes("EVENTS"));
  assert.ok(captions.includes("HEALTH"));
});
