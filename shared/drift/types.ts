/** What drift detection reports: plain data, Secret values never included nor compared (a Secret key is `<absent>` at most). */

export type BenignOwner = "HPA" | "VPA";

export interface DriftedField {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  /** `spec.replicas`, `spec.template.spec.containers[name=app].image`, `data.LOG_LEVEL`. */
  field: string;
  /** The manifest's value as text; absent for Secret values. */
  release?: string;
  /** The live value as text, `<absent>` when the field is gone (the only Secret row: a key the manifest sets is gone). */
  live: string;
  /** A Secret key: its value is never compared nor printed, only whether the key is there. */
  secret: boolean;
  /** The manager of the last change (from managedFields), when one other than Helm owns the field. */
  changedBy?: string;
  operation?: string;
  subresource?: string;
  /** RFC 3339, when that owner's entry has a time (scale-subresource entries often have none). */
  changedAt?: string;
  /** Whether Helm's manager still owns the field. */
  helmOwns: boolean;
  /** Server-side apply release and another manager owns the field: `helm upgrade` fails without --force-conflicts. */
  conflicts: boolean;
  /** A known benign owner (an HPA on its target's replicas, a VPA on resources): reported, not an alarm. */
  benign?: BenignOwner;
  /**
   * Helm's own later revision wrote the field (this status is of an older, still deployed revision after a
   * failed or pending upgrade): its number, when the revisions' times tell which one.
   */
  helmRevision?: number;
  /** Why there is no owner to name (webhook/defaulting, removed field, managedFields cleared). */
  note?: string;
}

export interface DriftReport {
  /** Live objects compared with their manifest. */
  checked: number;
  fields: DriftedField[];
  /** Fields that make the next SSA upgrade conflict. */
  conflicts: number;
  /** Fields owned by a known benign controller. */
  benign: number;
}
