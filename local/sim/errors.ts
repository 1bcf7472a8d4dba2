import { DomainError } from "../../shared/errors.ts";

/** The simulator could not start or was used wrongly (a bad option, a bad seed file). */
export class SimulatorSetupError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "SimulatorSetup";
}

/** A manifest or seed document the simulator cannot turn into objects. */
export class SimulatorInputError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "SimulatorInput";
}

/** A name that is not one of the simulated clusters. */
export class UnknownSimClusterError extends DomainError {
  readonly kind = "not-found" as const;
  readonly code = "UnknownSimCluster";
}
