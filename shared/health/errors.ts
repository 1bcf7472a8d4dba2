import { errorKind } from "../errors.ts";

/**
 * A live object whose fields have the wrong shape (conditions not a list,
 * observedGeneration not an integer...). kstatus's `Compute` returns an error
 * here and its poller turns that into `Unknown`; `assessHealth` does the same,
 * so this error never leaves the health area: it only carries the reason.
 */
export class MalformedObjectError extends errorKind("validation", "MalformedObject") {}
