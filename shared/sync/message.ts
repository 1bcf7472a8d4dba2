/** One scheduled sync message: a cluster to sync (SQS body `{"cluster": "..."}`), validated before any use. */
import { ValidationError } from "../errors.ts";
import { messageJson } from "../queue/message-body.ts";
import { validateClusterName } from "../release/validation.ts";

export interface SyncMessage {
  cluster: string;
}

export function parseSyncMessage(body: string): SyncMessage {
  const parsed = messageJson(body, () => new ValidationError("a sync message is not JSON", "InvalidSyncMessage"));
  const cluster = (parsed as { cluster?: unknown } | null)?.cluster;
  if (typeof cluster !== "string") throw new ValidationError("a sync message names no cluster", "InvalidSyncMessage");
  return { cluster: validateClusterName(cluster) };
}
