import { constants } from "node:zlib";
import type { MiddlewareObj } from "@middy/core";
import httpContentEncoding from "@middy/http-content-encoding";
import { chooseEncoding } from "../negotiation.ts";
import type { ApiContext, ApiEvent, ApiResult } from "../types.ts";

/**
 * Compresses responses the client accepts compressed. @middy/http-content-encoding
 * does the encoding but expects the negotiated encoding on the context (normally
 * set by http-content-negotiation, which would also try to negotiate media types
 * we handle per route), so the Accept-Encoding choice is made here.
 */
export function compression(): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  const encoder = httpContentEncoding({
    // Brotli defaults to quality 11, far too slow for a multi-megabyte status inside a request budget.
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } },
  }) as MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;
  return {
    before: (request) => {
      const encoding = chooseEncoding(request.event.headers?.["accept-encoding"]);
      request.context.preferredEncoding = encoding;
      request.context.preferredEncodings = encoding ? [encoding] : [];
    },
    after: encoder.after,
    onError: encoder.onError,
  };
}
