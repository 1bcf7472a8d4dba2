export { type CompareInput, compareObject, type Difference, scalarEqual } from "./compare.ts";
export { type DriftInput, type DriftObject, detectDrift, type LaterRevision } from "./detect.ts";
export { parseQuantity, quantitiesEqual } from "./quantity.ts";
export type { BenignOwner, DriftedField, DriftReport } from "./types.ts";
