import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_LOG, MAX_PATHS, type RequestLogEntry, StatsRecorder } from "../../local/sim/kube/faults.ts";

/** Issue 14 item 7: the simulator's memory stays flat however many requests it serves. */

const entry = (i: number): RequestLogEntry => ({
  method: "GET",
  path: `/api/v1/namespaces/ns/configmaps/cm-${i}`,
  query: "",
  accept: "",
  status: 200,
  user: "u",
  startedAt: i,
  durationMs: 1,
});

test("the request log is a ring of the latest entries; byPath stops adding keys at its bound", () => {
  const stats = new StatsRecorder();
  const total = MAX_LOG * 2 + 500;
  for (let i = 0; i < total; i++) {
    stats.begin(entry(i).path);
    stats.end(entry(i));
  }
  const snapshot = stats.snapshot();
  assert.equal(snapshot.total, total);
  assert.equal(snapshot.log.length, MAX_LOG);
  assert.equal(snapshot.logDropped, total - MAX_LOG);
  assert.deepEqual(
    [snapshot.log[0].startedAt, snapshot.log.at(-1)?.startedAt],
    [total - MAX_LOG, total - 1],
    "oldest first, newest last",
  );
  assert.equal(Object.keys(snapshot.byPath).length, MAX_PATHS + 1);
  assert.equal(
    Object.values(snapshot.byPath).reduce((a, b) => a + b, 0),
    total,
  );
  stats.reset();
  assert.deepEqual(stats.snapshot(), { total: 0, bytesOut: 0, byPath: {}, maxInFlight: 0, log: [], logDropped: 0 });
});
