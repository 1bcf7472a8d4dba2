import assert from "node:assert/strict";
import { test } from "node:test";
import { humanDuration } from "../../shared/kube/table.ts";
import { formatCell, printTable } from "../../shared/render/tables/kubectl-printer.ts";

const column = (name: string, priority = 0) => ({ name, type: "string", priority });

test("kubectl layout: min width 6, padding 3, last column unpadded, priority-0 columns only", () => {
  const out = printTable({
    columns: [column("Name"), column("Ready"), column("Node", 1), column("Age")],
    rows: [
      ["g1", "1/1", "node-a", "31m"],
      ["a-much-longer-name", null, "node-b", "2d"],
    ],
  });
  assert.equal(
    out,
    "NAME                 READY   AGE\ng1                   1/1     31m\na-much-longer-name           2d\n",
  );
  assert.equal(
    printTable({ columns: [column("Name"), column("Age")], rows: [["g1", "31m"]] }),
    "NAME   AGE\ng1     31m\n",
  );
  assert.equal(printTable({ columns: [column("Name")], rows: [] }), "", "no rows, no header");
});

test("cells: nil empty, first line only with ..., numbers and booleans as Go prints them, controls defused", () => {
  assert.equal(formatCell(null), "");
  assert.equal(formatCell(undefined), "");
  assert.equal(formatCell("line one\nline two"), "line one...");
  assert.equal(formatCell("a\rb"), "a...");
  assert.equal(formatCell(3), "3");
  assert.equal(formatCell(1.5), "1.5");
  assert.equal(formatCell(true), "true");
  assert.equal(formatCell({ b: 1, a: "x" }), "map[a:x b:1]");
  assert.equal(formatCell(["a", "b"]), "[a b]");
  assert.equal(formatCell("\x1b[31mred"), "^[[31mred");
  assert.equal(formatCell("tab\there"), "tab here");
});

test("widths count runes, not UTF-16 units", () => {
  const out = printTable({
    columns: [column("Name"), column("Age")],
    rows: [
      ["🚀🚀", "1s"],
      ["abcd", "2s"],
    ],
  });
  assert.equal(out, "NAME   AGE\n🚀🚀     1s\nabcd   2s\n");
});

test("HumanDuration: the upstream vectors", () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [-2 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [2 * m, "2m"],
    [2 * m + s, "2m1s"],
    [9 * m + 59 * s, "9m59s"],
    [10 * m, "10m"],
    [179 * m, "179m"],
    [3 * h, "3h"],
    [3 * h + 4 * m, "3h4m"],
    [8 * h, "8h"],
    [47 * h, "47h"],
    [2 * d, "2d"],
    [2 * d + h, "2d1h"],
    [8 * d, "8d"],
    [729 * d, "729d"],
    [730 * d, "2y"],
    [731 * d, "2y1d"],
    [8 * 365 * d, "8y"],
  ];
  for (const [ms, expected] of cases) assert.equal(humanDuration(ms), expected, `${ms} ms`);
});
