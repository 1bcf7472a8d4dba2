/**
 * The layering rules of docs/architecture.md, checked on every relative import (static, re-export and
 * dynamic) of the product's TypeScript: a new file that breaks one fails here with the offending line.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

interface Edge {
  from: string;
  to: string;
}

function edges(): Edge[] {
  const found: Edge[] = [];
  for (const top of ["shared", "functions", "bin", "local"]) {
    for (const entry of readdirSync(join(ROOT, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const file = join(entry.parentPath, entry.name);
      const from = relative(ROOT, file);
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const spec = match[1] ?? match[2];
        if (spec.startsWith(".")) found.push({ from, to: relative(ROOT, normalize(join(dirname(file), spec))) });
      }
    }
  }
  return found;
}

/** Why `edge` breaks a rule, or undefined. */
function violation({ from, to }: Edge): string | undefined {
  const [source, sourceFn] = from.split("/");
  const [target, targetFn] = to.split("/");
  if (source === "shared" && ["functions", "bin", "local"].includes(target)) {
    return "shared/ is the core: it imports none of functions/, bin/, local/";
  }
  if (source === "functions" && ["bin", "local"].includes(target)) return "functions/ imports none of bin/, local/";
  if (source === "functions" && target === "functions" && targetFn !== sourceFn && targetFn !== "_shared") {
    return "a function imports only its own folder and functions/_shared/, never another function";
  }
  if (from.startsWith("local/sim/") && !to.startsWith("local/sim/")) return "local/sim/ stands alone";
  return undefined;
}

test("every import follows the layering rules", () => {
  const all = edges();
  assert.ok(all.length > 300, `only ${all.length} imports found: is the pattern still right?`);
  const broken = all.flatMap((edge) => {
    const why = violation(edge);
    return why ? [`${edge.from} -> ${edge.to}: ${why}`] : [];
  });
  assert.deepEqual(broken, []);
});

test("the rules catch what they forbid", () => {
  assert.ok(violation({ from: "shared/usecases/x.ts", to: "functions/api/types.ts" }));
  assert.ok(violation({ from: "functions/chatops/handler.ts", to: "functions/api/deps.ts" }));
  assert.ok(violation({ from: "functions/api/handler.ts", to: "bin/lib/run.ts" }));
  assert.ok(violation({ from: "local/sim/cli.ts", to: "shared/errors.ts" }));
  assert.equal(violation({ from: "functions/audit/worker.ts", to: "functions/_shared/runtime.ts" }), undefined);
  assert.equal(violation({ from: "bin/lib/store.ts", to: "local/dynamodb-local.ts" }), undefined);
});
