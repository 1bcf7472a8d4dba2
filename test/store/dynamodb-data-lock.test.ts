import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { dataDirHolder, lockDataDir } from "../../local/dynamodb-data-lock.ts";

test("one engine per data folder: a second starter waits, then fails clearly; dead holders are taken over", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ddb-lock-"));
  try {
    const first = await lockDataDir(dir, "server", 1000);
    first.announce("http://127.0.0.1:1234");
    assert.deepEqual(dataDirHolder(dir), { pid: process.pid, owner: "server", endpoint: "http://127.0.0.1:1234" });
    await assert.rejects(lockDataDir(dir, "cli", 300), {
      name: "DataDirBusyError",
      message: new RegExp(`in use by process ${process.pid} \\(server\\)`),
    });
    first.release();
    assert.equal(dataDirHolder(dir), undefined);
    const second = await lockDataDir(dir, "cli", 300);
    second.release();
    // A holder that died without cleaning up (kill -9): its pid is gone.
    writeFileSync(join(dir, ".engine.json"), JSON.stringify({ pid: 2 ** 22 + 12345, owner: "cli" }));
    assert.equal(dataDirHolder(dir), undefined);
    const third = await lockDataDir(dir, "cli", 300);
    third.release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
