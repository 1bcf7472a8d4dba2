import type { MiddlewareObj } from "@middy/core";
import { ResponseTooLargeError } from "./errors.ts";
import type { HttpContext, HttpEvent, HttpResult } from "./types.ts";

const DEFAULT_HINT = "narrow the query (a smaller ?limit or ?max) or send Accept-Encoding: gzip";

/**
 * Lambda drops a response over 6 MB and API Gateway answers a bare 502. Measuring
 * the serialized result (after compression, which is what Lambda counts) lets
 * the caller get a 413 that says how to ask for less instead.
 */
export function responseSizeLimit(limitBytes: number): MiddlewareObj<HttpEvent, HttpResult, Error, HttpContext> {
  return {
    after: (request) => {
      const bytes = Buffer.byteLength(JSON.stringify(request.response ?? null));
      if (bytes > limitBytes) {
        throw new ResponseTooLargeError(bytes, limitBytes, request.context.annotations?.sizeHint ?? DEFAULT_HINT);
      }
    },
  };
}
