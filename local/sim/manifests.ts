import { SimulatorInputError } from "./errors.ts";
import type { KubeObject } from "./kube/types.ts";
import { kubeYamlValue, parseKubeYamlDocuments } from "./kube/yaml.ts";

/**
 * Objects from YAML (multi-document, `# Source:` comments, `kind: List` / `*List`
 * documents flattened, as `kubectl get -o yaml` prints them) or from an object array.
 */
export function parseObjects(input: object[] | string, source = "input"): KubeObject[] {
  const documents: unknown[] = [];
  if (typeof input === "string") {
    for (const [index, document] of parseKubeYamlDocuments(input).entries()) {
      if (document.errors.length > 0) {
        throw new SimulatorInputError(
          `${source}: YAML document ${index + 1} is not valid: ${document.errors[0].message}`,
        );
      }
      const value = kubeYamlValue(document);
      if (value !== null && value !== undefined) documents.push(value);
    }
  } else {
    documents.push(...input);
  }
  const objects: KubeObject[] = [];
  const visit = (value: unknown, where: string) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new SimulatorInputError(`${source}: ${where} is not a Kubernetes object`);
    }
    const object = value as KubeObject;
    if (typeof object.kind === "string" && object.kind.endsWith("List") && Array.isArray(object.items)) {
      object.items.forEach((item: unknown, i: number) => {
        visit(item, `${where} item ${i + 1}`);
      });
      return;
    }
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string") {
      throw new SimulatorInputError(`${source}: ${where} has no apiVersion/kind`);
    }
    if (typeof object.metadata?.name !== "string" && typeof object.metadata?.generateName !== "string") {
      throw new SimulatorInputError(`${source}: ${where} (${object.kind}) has no metadata.name`);
    }
    objects.push(structuredClone(object));
  };
  documents.forEach((d, i) => {
    visit(d, `document ${i + 1}`);
  });
  return objects;
}
