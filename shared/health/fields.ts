/**
 * Tolerant readers for unstructured live objects, mirroring kstatus's
 * `GetIntField`/`GetStringField`: a missing or mistyped scalar falls back to a
 * default (as kstatus does), while a structurally broken list of conditions is
 * an error (kstatus fails to convert it and reports Unknown).
 */

import { isRecord } from "../input/values.ts";
import { MalformedObjectError } from "./errors.ts";

export type KubeObject = Record<string, unknown>;

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** Re-exported for this area's modules (one definition, in shared/input/values.ts). */
export { isRecord };

export function fieldAt(object: KubeObject, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split(".")) {
    if (!isRecord(value)) return undefined;
    value = value[key];
  }
  return value;
}

export function intField(object: KubeObject, path: string, fallback: number): number {
  const value = fieldAt(object, path);
  return typeof value === "number" && Number.isInteger(value) ? value : fallback;
}

export function stringField(object: KubeObject, path: string, fallback: string): string {
  const value = fieldAt(object, path);
  return typeof value === "string" ? value : fallback;
}

/** An integer field that must be an integer when present (kstatus's NestedInt64 errors otherwise). */
export function strictIntField(object: KubeObject, path: string): number | undefined {
  const value = fieldAt(object, path);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isInteger(value)) return value;
  throw new MalformedObjectError(`${path} is not an integer (${JSON.stringify(value)})`);
}

export function conditionsOf(object: KubeObject): Condition[] {
  const status = object.status;
  if (status === undefined || status === null) return [];
  if (!isRecord(status)) throw new MalformedObjectError("status is not an object");
  const raw = status.conditions;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new MalformedObjectError("status.conditions is not a list");
  return raw.map((entry, index) => {
    if (!isRecord(entry)) throw new MalformedObjectError(`status.conditions[${index}] is not an object`);
    return {
      type: textOf(entry.type, `status.conditions[${index}].type`),
      status: textOf(entry.status, `status.conditions[${index}].status`),
      reason: textOf(entry.reason, `status.conditions[${index}].reason`),
      message: textOf(entry.message, `status.conditions[${index}].message`),
    };
  });
}

function textOf(value: unknown, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  throw new MalformedObjectError(`${path} is not a string`);
}

export function findCondition(conditions: Condition[], type: string, status?: string): Condition | undefined {
  return conditions.find((c) => c.type === type && (status === undefined || c.status === status));
}

/** "reason: message", either part optional, for verdict messages. */
export function describeCondition(condition: Condition, fallback: string): string {
  const parts = [condition.reason, condition.message].filter((part) => part !== "");
  return parts.length > 0 ? parts.join(": ") : fallback;
}
