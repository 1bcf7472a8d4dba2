import type { ResourcePath } from "./handlers.ts";
import { ApiError, badRequest } from "./negotiation.ts";
import { decodeProtobufObject, ProtobufDecodeError, ProtobufKindUnsupportedError } from "./protobuf.ts";
import type { KubeObject, ResourceType } from "./types.ts";

/** Request bodies as kube-apiserver decodes them (JSON, protobuf for a few core kinds) and the identity checks. */

export function parseBody(body: Buffer, contentType: string | undefined, anyJson = false): KubeObject {
  const type = (contentType ?? "application/json").split(";")[0].trim();
  if (!anyJson && type === "application/vnd.kubernetes.protobuf") return parseProtobuf(body);
  if (!anyJson && type !== "application/json" && type !== "") {
    throw new ApiError(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: application/json`,
    );
  }
  try {
    const parsed = JSON.parse(body.toString("utf8"));
    if (!anyJson && (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)))
      throw new Error("not an object");
    return parsed;
  } catch (error) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(error as Error).message}`);
  }
}

export function parseProtobuf(body: Buffer): KubeObject {
  try {
    return decodeProtobufObject(body);
  } catch (error) {
    if (error instanceof ProtobufKindUnsupportedError) {
      throw new ApiError(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: application/json (${error.message})`,
      );
    }
    if (error instanceof ProtobufDecodeError) {
      throw badRequest(`the body of the request could not be decoded as protobuf: ${error.message}`);
    }
    throw error;
  }
}

export function checkIdentity(type: ResourceType, apiVersion: string, object: KubeObject, path: ResourcePath): void {
  if (object.kind && object.kind !== type.kind) {
    throw badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${type.kind})`);
  }
  if (object.apiVersion && object.apiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersion})`,
    );
  }
  const bodyNamespace = object.metadata?.namespace;
  if (type.namespaced && bodyNamespace && bodyNamespace !== path.namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
}
