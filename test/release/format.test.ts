import assert from "node:assert/strict";
import { test } from "node:test";
import { displayWidth, kubectlColumns, uiTable } from "../../shared/render/tables/columns.ts";
import { renderHelmHistory, renderHelmList } from "../../shared/render/tables/release-tables.ts";
import { formatAnsiC, formatGoTime, isZeroTime, parseRfc3339 } from "../../shared/render/time/helm-time.ts";
import { makeRelease } from "../store/fixtures.ts";

test("ANSI C time in the stored offset, day space-padded (Go's time.ANSIC)", () => {
  assert.equal(formatAnsiC("2026-12-02T15:10:00.123456789Z"), "Wed Dec  2 15:10:00 2026");
  assert.equal(formatAnsiC("2026-01-15T23:59:59-08:00"), "Thu Jan 15 23:59:59 2026");
  assert.equal(formatAnsiC("2024-02-29T00:00:00+05:30"), "Thu Feb 29 00:00:00 2024");
  assert.equal(formatAnsiC("0001-01-01T00:00:00Z"), "Mon Jan  1 00:00:00 0001");
  assert.equal(formatAnsiC("not a time"), "not a time");
  assert.equal(parseRfc3339("2026-02-30T00:00:00Z"), undefined);
  assert.equal(isZeroTime("0001-01-01T00:00:00Z"), true);
  assert.equal(isZeroTime("2026-12-02T15:10:00Z"), false);
});

test("Go's time.String for helm list's UPDATED", () => {
  assert.equal(formatGoTime("2026-12-02T15:10:00.123456789Z"), "2026-12-02 15:10:00.123456789 +0000 UTC");
  assert.equal(formatGoTime("2026-12-02T15:10:00.120Z"), "2026-12-02 15:10:00.12 +0000 UTC");
  assert.equal(formatGoTime("2026-12-02T15:10:00Z"), "2026-12-02 15:10:00 +0000 UTC");
  assert.equal(formatGoTime("2026-12-02T15:10:00-05:00"), "2026-12-02 15:10:00 -0500 -0500");
});

test("uitable: every cell padded, TAB separated, a multi-line cell cut whole at its column's width, then split", () => {
  assert.equal(
    uiTable([
      ["A", "BB"],
      ["ccc", "d"],
    ]),
    "A  \tBB\nccc\td \n",
  );
  // The column is as wide as the widest line (2); the cell, whole, is 3 wide: strutil.Resize cuts it.
  assert.equal(
    uiTable([
      ["X", "Y"],
      ["0123456789", "a\nbb"],
    ]),
    "X         \tY \n0123456789\ta...\n",
  );
  // These bytes are helm 4.1's (test/fidelity prints the same through the real helm).
  assert.equal(
    uiTable([["D"], ["Upgrade failed:\n  resource one is not ready\n  resource two is not ready"], ["a\nb"]]),
    [
      "D                          ",
      "Upgrade failed:            ",
      "  resourc...               ",
      "a                          ",
      "b                          ",
      "",
    ].join("\n"),
  );
  // go-runewidth v0.0.9: wide and emoji 2, combining 0, rune by rune (a ZWJ family is 2+0+2+0+2).
  assert.equal(displayWidth("日本語"), 6);
  assert.equal(displayWidth("👍"), 2);
  assert.equal(displayWidth("e\u0301"), 1);
  assert.equal(displayWidth("👨\u200d👩\u200d👧"), 6);
  assert.equal(displayWidth("\t\r"), 0);
  // go-runewidth v0.0.9's own tables (helm 4.1.4): most scripts' marks, flags and U+FE0F count 1, a keycap's U+20E3 0.
  assert.equal(displayWidth("ที่"), 3, "Thai vowel and tone marks");
  assert.equal(displayWidth("कि"), 2, "Devanagari vowel sign");
  assert.equal(displayWidth("مَ"), 2, "Arabic harakat");
  assert.equal(displayWidth("🇯🇵"), 2, "regional indicators, one each");
  assert.equal(displayWidth("❤️"), 2, "U+FE0F counts 1");
  assert.equal(displayWidth("1️⃣"), 2, "1, U+FE0F, and U+20E3 (combining) 0");
  assert.equal(
    displayWidth("\u00ad\u200b\u2060"),
    1,
    "soft hyphen and ZWSP are nonprint, U+2060 is not in v0.0.9's table",
  );
  assert.equal(
    uiTable([
      ["NAME", "APP"],
      ["a", "版本🚀"],
    ]),
    "NAME\tAPP   \na   \t版本🚀\n",
  );
  // The cut keeps the rune that reaches width - 3, wide or not.
  assert.equal(
    uiTable([["ABCDEFG"], ["日本\n日本語の説明です"]]),
    `ABCDEFG${" ".repeat(9)}\n日本${" ".repeat(12)}\n日本語の説...${" ".repeat(3)}\n`,
  );
  assert.equal(
    kubectlColumns([
      ["NAME", "AGE"],
      ["a-long-name", "5m"],
    ]),
    "NAME          AGE\na-long-name   5m\n",
  );
});

test("helm list and helm history tables", () => {
  const release = makeRelease({ name: "demo", version: 2 });
  const list = renderHelmList([
    {
      cluster: "local",
      namespace: "default",
      name: "demo",
      revision: 2,
      status: "deployed",
      updated: "2026-12-02T15:10:00.5Z",
      chart: release.chart?.metadata,
    },
    { cluster: "local", namespace: "default", name: "gone", revision: 1, status: "failed" },
  ]);
  assert.equal(
    list,
    "NAME\tNAMESPACE\tREVISION\tUPDATED                        \tSTATUS  \tCHART     \tAPP VERSION\n" +
      "demo\tdefault  \t2       \t2026-12-02 15:10:00.5 +0000 UTC\tdeployed\tdemo-0.1.0\t1.16.0     \n" +
      "gone\tdefault  \t1       \t-                              \tfailed  \tMISSING   \tMISSING    \n",
  );
  const { manifest: _m, hooks: _h, ...metadata } = release;
  const history = renderHelmHistory([
    { ...metadata, version: 2 },
    { ...metadata, version: 1, info: { ...metadata.info!, status: "superseded", description: "d".repeat(70) } },
  ]);
  const lines = history.split("\n");
  assert.equal(
    lines[0],
    `REVISION\tUPDATED                 \tSTATUS    \tCHART     \tAPP VERSION\tDESCRIPTION${" ".repeat(59)}`,
  );
  assert.match(lines[1], /^1 {7}\tWed Dec {2}2 15:02:00 2026\tsuperseded\tdemo-0\.1\.0\t1\.16\.0 {5}\td{70}$/);
  assert.match(lines[2], /^2 {7}\tWed Dec {2}2 15:02:00 2026\tdeployed {2}\t/);
});
