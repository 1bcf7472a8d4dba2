/**
 * Who changed it's configuration, in one place: the AttributionStore for a store configuration (the one
 * STORE_DRIVER: releases table or memory), and whether attribution is on (WHO_LOOKUP) for every process that reads it.
 */
import { type Env, envValue, type Fail } from "../input/env.ts";
import { onReleasesTable, type StoreConfig } from "../store/config.ts";
import type { AttributionStore } from "./attribution.ts";
import { DynamoDbAttributionStore } from "./dynamodb-attribution-store.ts";
import { MemoryAttributionStore } from "./memory-attribution-store.ts";

export function openAttributionStore(config: StoreConfig): AttributionStore {
  return onReleasesTable<AttributionStore>(
    config,
    () => new MemoryAttributionStore(),
    (table) => new DynamoDbAttributionStore(table),
  );
}

/**
 * WHO_LOOKUP (`on` by default, or `off`): whether the syncs and audits enqueue new revisions and drift writes and the
 * sync worker looks them up (docs/who.md). Anything else fails through `fail`, naming the variable.
 */
export function whoLookupFromEnv(env: Env, fail: Fail): boolean {
  const value = envValue(env.WHO_LOOKUP);
  if (value === undefined || value === "on") return true;
  if (value === "off") return false;
  throw fail(`WHO_LOOKUP=${JSON.stringify(value.slice(0, 40))} is not on or off`);
}
