import assert from "node:assert/strict";
import { test } from "node:test";
import { formatGoLayout } from "../../shared/render/time/go-layout.ts";

// Expected texts are Go's time.Format of the same wall clock (helm list --time-format prints through it).
test("every reference-time token prints as Go's time.Format does", () => {
  const at = "2026-12-04T09:05:07.123450Z";
  assert.equal(
    formatGoLayout(at, "January Jan Monday Mon 01 1 02 _2 2 __2 002 2006 06 15 03 3 04 4 05 5 PM pm MST"),
    "December Dec Friday Fri 12 12 04  4 4 338 338 2026 26 09 09 9 05 5 07 7 AM am UTC",
  );
  assert.equal(formatGoLayout(at, ".000 .999 ,999999 .9"), ".123 .123 ,12345 .1");
  assert.equal(
    formatGoLayout("2024-02-29T21:00:00-08:00", "Z07:00 -0700 -07 Z070000 -07:00:00 MST 3PM .999|"),
    "-08:00 -0800 -08 -080000 -08:00:00 -0800 9PM |",
  );
});

test("Go's token rules: a lower-case letter after Jan or Mon, and _2006, are copied as text", () => {
  assert.equal(formatGoLayout("2026-01-05T00:00:00Z", "Janus Monk _2006"), "Janus Monk _2026");
  assert.equal(formatGoLayout("not a time", "2006"), "not a time");
});
