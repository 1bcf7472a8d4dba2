/**
 * The simulator's own errors. It stands alone (it could become a workspace package): nothing here comes from
 * the product's shared/ or bin/, so the product's error taxonomy can change without touching the simulator.
 * `kind` says how a caller should treat the failure: a usage mistake (exit 2 in the CLI) or a missing name.
 */
export type SimErrorKind = "validation" | "not-found";

export abstract class SimulatorError extends Error {
  abstract readonly kind: SimErrorKind;
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The simulator could not start or was used wrongly (a bad option, a bad seed file). */
export class SimulatorSetupError extends SimulatorError {
  readonly kind = "validation" as const;
  readonly code = "SimulatorSetup";
}

/** A manifest or seed document the simulator cannot turn into objects. */
export class SimulatorInputError extends SimulatorError {
  readonly kind = "validation" as const;
  readonly code = "SimulatorInput";
}

/** A name that is not one of the simulated clusters. */
export class UnknownSimClusterError extends SimulatorError {
  readonly kind = "not-found" as const;
  readonly code = "UnknownSimCluster";
}
