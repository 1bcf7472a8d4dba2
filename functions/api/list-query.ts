/**
 * helm list's flags as query parameters of the list routes: the same names as the CLI's long
 * flags (`?deployed&failed`, `?filter=`, `?selector=`, `?max=`, `?offset=`, `?date`, `?reverse`,
 * `?short`, `?timeFormat=`), plus `?status=` and `?cursor=` (the next offset, opaque).
 */

import { InvalidCursorError } from "../../shared/store/errors.ts";
import { decodeCursor, encodeCursor } from "../../shared/store/paging.ts";
import { type HelmListQuery, LIST_STATE_FLAGS, type ListStateFlag } from "../../shared/usecases/helm-list.ts";
import { InvalidParameterError } from "../_shared/http/errors.ts";
import { optionalStatus } from "./params.ts";

type RawParams = Record<string, string | undefined> | undefined | null;

const BOOLEAN_PARAMS = ["date", "reverse", "short", ...Object.keys(LIST_STATE_FLAGS)];
export const LIST_QUERY_PARAMS = [
  ...BOOLEAN_PARAMS,
  "status",
  "filter",
  "selector",
  "max",
  "limit",
  "offset",
  "cursor",
  "timeFormat",
  "output",
];

/** `?deployed`, `?deployed=true` and `?deployed=1` are on; `false`/`0` off. */
function flag(query: RawParams, key: string): boolean {
  const value = query?.[key];
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "" || value === "true" || value === "1") return true;
  throw new InvalidParameterError(
    key,
    `${JSON.stringify(value.slice(0, 40))} is not a boolean (true, false, 1, 0 or empty)`,
  );
}

function integer(query: RawParams, key: string): number | undefined {
  const value = query?.[key];
  if (value === undefined) return undefined;
  if (!/^[-+]?[0-9]{1,10}$/.test(value))
    throw new InvalidParameterError(key, `${JSON.stringify(value.slice(0, 40))} is not an integer`);
  return Number(value);
}

export interface ApiListQuery {
  query: Omit<HelmListQuery, "cluster" | "namespace">;
  short: boolean;
  timeFormat?: string;
}

export function listQueryFrom(query: RawParams): ApiListQuery {
  const max = integer(query, "max") ?? integer(query, "limit");
  if (query?.max !== undefined && query?.limit !== undefined) {
    throw new InvalidParameterError("limit", "is an alias of max: give one of them");
  }
  let offset = integer(query, "offset");
  if (query?.cursor !== undefined) {
    if (offset !== undefined)
      throw new InvalidParameterError("cursor", "is the next offset: give cursor or offset, not both");
    const position = decodeCursor("helm-list", query.cursor).offset;
    if (typeof position !== "number" || !Number.isSafeInteger(position) || position < 0) throw new InvalidCursorError();
    offset = position;
  }
  return {
    query: {
      states: (Object.keys(LIST_STATE_FLAGS) as ListStateFlag[]).filter((state) => flag(query, state)),
      status: optionalStatus(query),
      filter: query?.filter || undefined,
      selector: query?.selector || undefined,
      max,
      offset,
      byDate: flag(query, "date"),
      reverse: flag(query, "reverse"),
    },
    short: flag(query, "short"),
    timeFormat: query?.timeFormat || undefined,
  };
}

/** The cursor of the next page: where `max` cut the list. */
export const nextListCursor = (offset: number) => encodeCursor("helm-list", { offset });
