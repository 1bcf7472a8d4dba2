import { parse as parseYaml } from "yaml";
import { jsonErrorMessage, QUIET_YAML, yamlErrorMessage } from "../../../shared/parse-errors.ts";
import { importReleases } from "../../../shared/usecases/import.ts";
import { loggerPort } from "../../_shared/telemetry.ts";
import { InvalidBodyError, RequestTooLargeError } from "../errors.ts";
import { clusterParam, onlyKnownQuery } from "../params.ts";
import { json } from "../respond.ts";
import { defineRoute, type RouteDefinition } from "../route.ts";
import type { ApiDeps, ApiEvent } from "../types.ts";
import { annotate } from "./releases.ts";

/**
 * POST /clusters/{cluster}/releases/import: what `import` reads (a Helm release
 * Secret/ConfigMap or a List of them), so CI can push a revision right after
 * `helm upgrade`. 200 when every object was imported or already there, 422 when
 * any failed (so `curl --fail` fails the pipeline), with the per-object summary
 * either way. The body is never logged: it carries the release's values.
 */
export function importRoutes(deps: ApiDeps): RouteDefinition[] {
  const logger = loggerPort(deps.logger);
  return [
    defineRoute("POST", "/clusters/{cluster}/releases/import", async (event, context) => {
      const cluster = clusterParam(event.pathParameters);
      onlyKnownQuery(event.queryStringParameters, []);
      annotate(context, { cluster });
      const document = parseBody(event, deps.settings.maxBodyBytes);
      const summary = await importReleases(
        { store: deps.store, clusters: deps.clusters, logger },
        { cluster, document },
      );
      return json(summary, summary.failed > 0 ? 422 : 200);
    }),
  ];
}

function parseBody(event: ApiEvent, maxBytes: number): unknown {
  if (event.body === undefined || event.body === null || event.body === "") {
    throw new InvalidBodyError(
      "the request body is empty: send a Helm release Secret or ConfigMap (or a List of them) as JSON, e.g. `kubectl get secret -l owner=helm -o json`",
    );
  }
  let raw: string;
  if (event.isBase64Encoded) {
    if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(event.body)) {
      throw new InvalidBodyError("the request body is marked base64-encoded but is not valid base64");
    }
    raw = Buffer.from(event.body, "base64").toString("utf8");
  } else {
    raw = event.body;
  }
  const bytes = Buffer.byteLength(raw);
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
    return isYaml ? parseYaml(raw, QUIET_YAML) : JSON.parse(raw);
  } catch (error) {
    // The kind of fault and its position only: parsers quote the body, and the body holds release values.
    const detail = isYaml ? yamlErrorMessage(error) : jsonErrorMessage(error);
    throw new InvalidBodyError(`the request body is not valid ${isYaml ? "YAML" : "JSON"}: ${detail}`, {
      cause: error,
    });
  }
}
