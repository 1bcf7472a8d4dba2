import { InvalidImportDocumentError, parseImportDocument } from "../../../shared/release/import-document.ts";
import { importReleases } from "../../../shared/usecases/import.ts";
import { loggerPort } from "../../_shared/telemetry.ts";
import { InvalidBodyError, RequestTooLargeError } from "../errors.ts";
import { clusterParam, onlyKnownQuery } from "../params.ts";
import { json } from "../respond.ts";
import { defineRoute, type RouteDefinition } from "../route.ts";
import type { ApiContext, ApiDeps, ApiEvent } from "../types.ts";
import { annotate } from "./releases.ts";

/**
 * POST /clusters/{cluster}/releases/import: what `import` reads (a Helm release
 * Secret/ConfigMap or a List of them), so CI can push a revision right after
 * `helm upgrade`. 200 when every object was imported or already there, 422 when
 * any failed (so `curl --fail` fails the pipeline), 207 when the Lambda's time
 * ran out before every object was started (the summary says how many were not;
 * sending the same body again continues), with the per-object summary each time.
 * The body is never logged: it carries the release's values.
 */
export function importRoutes(deps: ApiDeps): RouteDefinition[] {
  const logger = loggerPort(deps.logger);
  return [
    defineRoute("POST", "/clusters/{cluster}/releases/import", async (event, context) => {
      const cluster = clusterParam(event.pathParameters);
      onlyKnownQuery(event.queryStringParameters, []);
      annotate(context, { cluster });
      const document = parseBody(event, deps.settings.maxBodyBytes);
      const deadline = importDeadline(context, deps.settings.deadlineMarginMs);
      const summary = await importReleases(
        { store: deps.store, clusters: deps.clusters, logger },
        { cluster, document, deadline },
      );
      return json(summary, summary.failed > 0 ? 422 : summary.complete ? 200 : 207);
    }),
  ];
}

/** Time a write already running may still need when the last object is started. */
const IMPORT_WRITE_MARGIN_MS = 3_000;
const DEFAULT_BUDGET_MS = 29_000;

/** Epoch ms after which no object is started: the Lambda's remaining time minus the margins. */
function importDeadline(context: ApiContext, marginMs: number): number {
  const remaining =
    typeof context.getRemainingTimeInMillis === "function" ? context.getRemainingTimeInMillis() : DEFAULT_BUDGET_MS;
  return Date.now() + Math.max(0, remaining - marginMs - IMPORT_WRITE_MARGIN_MS);
}

function parseBody(event: ApiEvent, maxBytes: number): unknown {
  if (event.body === undefined || event.body === null || event.body === "") {
    throw new InvalidBodyError(
      "the request body is empty: send a Helm release Secret or ConfigMap (or a List of them) as JSON, e.g. `kubectl get secret -l owner=helm -o json`",
    );
  }
  let raw: string | Buffer;
  if (event.isBase64Encoded) {
    if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(event.body)) {
      throw new InvalidBodyError("the request body is marked base64-encoded but is not valid base64");
    }
    raw = Buffer.from(event.body, "base64");
  } else {
    raw = event.body;
  }
  const bytes = typeof raw === "string" ? Buffer.byteLength(raw) : raw.length;
  if (bytes > maxBytes) {
    throw new RequestTooLargeError(
      `the request body is ${bytes} bytes, over the ${maxBytes}-byte limit; import fewer objects per request`,
    );
  }
  const contentType = (event.headers?.["content-type"] ?? "application/json").split(";")[0].trim().toLowerCase();
  const isYaml = /yaml/.test(contentType);
  if (!isYaml && contentType !== "application/json" && !contentType.endsWith("+json") && contentType !== "text/plain") {
    throw new InvalidBodyError(`unsupported content-type "${contentType}": send application/json or application/yaml`);
  }
  try {
    return parseImportDocument(raw, { syntax: isYaml ? "yaml" : "json", where: "the request body" });
  } catch (error) {
    // The API's code for every fault of the body; the message is the shared parser's (never quoting the body).
    if (error instanceof InvalidImportDocumentError) throw new InvalidBodyError(error.message, { cause: error });
    throw error;
  }
}
