/**
 * Checks a CloudFormation template against AWS's resource specification as CDK
 * ships it (@aws-cdk/aws-service-spec, built daily from the CloudFormation
 * registry schemas, so it knows AWS::EKS::AccessEntry): every resource type
 * exists, required properties are present, no property is unknown (at any depth),
 * values have the specified shape, and every Ref / Fn::GetAtt / ${...} / DependsOn /
 * Condition names something the template defines. The spec has no enums or
 * patterns, so allowed values (e.g. AccessScope.Type) are not checked here.
 *
 *   node infra/validate-template.ts .serverless/cloudformation-template-update-stack.json
 */
import { readFileSync } from "node:fs";
import { loadAwsServiceSpecSync } from "@aws-cdk/aws-service-spec";

/** The slices of the spec database this reads (structural, so no deep imports of its types). */
type SpecType =
  | { type: "string" | "number" | "integer" | "boolean" | "json" | "date-time" | "null" | "tag" }
  | { type: "array" | "map"; element: SpecType }
  | { type: "ref"; reference: { $ref: string } }
  | { type: "union"; types: SpecType[] };
type SpecProperties = Record<string, { required?: boolean; type: SpecType }>;
interface SpecResource {
  cloudFormationType: string;
  properties: SpecProperties;
  attributes: Record<string, unknown>;
}
export interface Spec {
  resource(type: string): SpecResource | undefined;
  typeDefinition(id: string): { name: string; properties: SpecProperties };
}

let cached: Spec | undefined;

/** The spec, loaded once per process (about 2 s). */
export function loadSpec(): Spec {
  if (cached) return cached;
  const db = loadAwsServiceSpecSync();
  const byType = new Map<string, SpecResource>();
  for (const resource of db.all("resource")) byType.set(resource.cloudFormationType, resource as never);
  cached = {
    resource: (type) => byType.get(type),
    typeDefinition: (id) => db.get("typeDefinition", id) as never,
  };
  return cached;
}

const TEMPLATE_KEYS = [
  "AWSTemplateFormatVersion",
  "Description",
  "Metadata",
  "Parameters",
  "Mappings",
  "Conditions",
  "Transform",
  "Rules",
  "Resources",
  "Outputs",
];
const RESOURCE_KEYS = [
  "Type",
  "Properties",
  "DependsOn",
  "Condition",
  "Metadata",
  "DeletionPolicy",
  "UpdateReplacePolicy",
  "CreationPolicy",
  "UpdatePolicy",
];
const PSEUDO = new Set([
  "AWS::AccountId",
  "AWS::NotificationARNs",
  "AWS::NoValue",
  "AWS::Partition",
  "AWS::Region",
  "AWS::StackId",
  "AWS::StackName",
  "AWS::URLSuffix",
]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Template {
  Resources?: Record<string, { Type?: string; Properties?: Record<string, Json>; [key: string]: unknown }>;
  Parameters?: Record<string, unknown>;
  Conditions?: Record<string, unknown>;
  [key: string]: unknown;
}

const isObject = (value: unknown): value is Record<string, Json> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
/** `{Ref: X}` or `{Fn::Something: ...}`: its value is computed by CloudFormation, so its type is not checked. */
const isIntrinsic = (value: unknown): boolean => {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === "Ref" || keys[0].startsWith("Fn::") || keys[0] === "Condition");
};

/** Every problem found, as `Resources.<Id>.Properties.<path>: <what>` lines; empty when the template is valid. */
export function validateTemplate(template: Template, spec: Spec = loadSpec()): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(template)) {
    if (!TEMPLATE_KEYS.includes(key)) problems.push(`${key}: not a template section`);
  }
  const resources = template.Resources ?? {};
  if (Object.keys(resources).length === 0) problems.push("Resources: a template needs at least one resource");
  const known = new Set([...Object.keys(resources), ...Object.keys(template.Parameters ?? {})]);
  // CloudFormation refuses a resource and a parameter of one name (a Ref could mean either).
  for (const name of Object.keys(template.Parameters ?? {})) {
    if (resources[name]) problems.push(`Parameters.${name}: a resource has the same logical id`);
  }
  const conditions = new Set(Object.keys(template.Conditions ?? {}));

  const checkValue = (value: Json | undefined, type: SpecType, where: string): void => {
    if (value === undefined || isIntrinsic(value)) return;
    switch (type.type) {
      case "string":
      case "date-time":
        if (!["string", "number", "boolean"].includes(typeof value)) problems.push(`${where}: expected a string`);
        return;
      case "number":
      case "integer":
        if (typeof value !== "number" && !(typeof value === "string" && value.trim() !== "" && !Number.isNaN(+value)))
          problems.push(`${where}: expected a number`);
        else if (type.type === "integer" && !Number.isInteger(+value)) problems.push(`${where}: expected an integer`);
        return;
      case "boolean":
        if (typeof value !== "boolean" && value !== "true" && value !== "false")
          problems.push(`${where}: expected a boolean`);
        return;
      case "json":
      case "null":
        return;
      case "tag":
        if (!isObject(value)) problems.push(`${where}: expected a tag {Key, Value}`);
        else
          checkProperties(
            value,
            { Key: { required: true, type: { type: "string" } }, Value: { required: true, type: { type: "string" } } },
            where,
          );
        return;
      case "array":
        if (!Array.isArray(value)) problems.push(`${where}: expected a list`);
        else for (const [index, item] of value.entries()) checkValue(item, type.element, `${where}[${index}]`);
        return;
      case "map":
        if (!isObject(value)) problems.push(`${where}: expected a map`);
        else for (const [key, item] of Object.entries(value)) checkValue(item, type.element, `${where}.${key}`);
        return;
      case "ref": {
        const definition = spec.typeDefinition(type.reference.$ref);
        if (!isObject(value)) problems.push(`${where}: expected a ${definition.name} object`);
        else checkProperties(value, definition.properties, where);
        return;
      }
      case "union": {
        // Accept the value when any member accepts it; report the first member's problems otherwise.
        const attempts = type.types.map((member) => {
          const before = problems.length;
          checkValue(value, member, where);
          return problems.splice(before);
        });
        if (!attempts.some((found) => found.length === 0)) problems.push(...attempts[0]);
        return;
      }
    }
  };

  const checkProperties = (value: Record<string, Json>, properties: SpecProperties, where: string): void => {
    for (const [name, property] of Object.entries(properties)) {
      if (property.required && value[name] === undefined) problems.push(`${where}.${name}: required property missing`);
    }
    for (const [name, item] of Object.entries(value)) {
      const property = properties[name];
      if (!property) problems.push(`${where}.${name}: unknown property`);
      else checkValue(item, property.type, `${where}.${name}`);
    }
  };

  for (const [id, resource] of Object.entries(resources)) {
    const where = `Resources.${id}`;
    for (const key of Object.keys(resource)) {
      if (!RESOURCE_KEYS.includes(key)) problems.push(`${where}.${key}: not a resource attribute`);
    }
    const type = resource.Type;
    if (typeof type !== "string") {
      problems.push(`${where}.Type: missing`);
      continue;
    }
    if (type.startsWith("Custom::")) continue;
    const definition = spec.resource(type);
    if (!definition) {
      problems.push(`${where}.Type: ${type} is not a CloudFormation resource type`);
      continue;
    }
    const properties = resource.Properties ?? {};
    if (!isObject(properties)) problems.push(`${where}.Properties: expected an object`);
    else checkProperties(properties, definition.properties, `${where}.Properties`);
    for (const dependency of [resource.DependsOn ?? []].flat() as string[]) {
      if (!resources[dependency]) problems.push(`${where}.DependsOn: no resource ${dependency}`);
    }
    if (resource.Condition !== undefined && !conditions.has(String(resource.Condition))) {
      problems.push(`${where}.Condition: no condition ${resource.Condition}`);
    }
  }

  // References anywhere (resources, outputs, conditions) must name what the template defines.
  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, `${where}[${index}]`);
      return;
    }
    if (!isObject(value)) return;
    for (const [key, item] of Object.entries(value)) {
      if (key === "Ref" && typeof item === "string" && !known.has(item) && !PSEUDO.has(item)) {
        problems.push(`${where}: Ref to undefined ${item}`);
      } else if (key === "Fn::GetAtt") {
        const [target, attribute] = Array.isArray(item) ? item : String(item).split(/\.(.*)/);
        checkGetAtt(String(target), String(attribute), where);
      } else if (key === "Fn::Sub") {
        const [text, variables] = Array.isArray(item) ? item : [item, {}];
        for (const [, name] of String(text).matchAll(/\$\{([^!}][^}]*)\}/g)) {
          if (isObject(variables) && name in variables) continue;
          const [target, attribute] = name.split(/\.(.*)/);
          if (attribute !== undefined) checkGetAtt(target, attribute, where);
          else if (!known.has(target) && !PSEUDO.has(target)) problems.push(`${where}: \${${name}} names nothing`);
        }
      }
      visit(item, `${where}.${key}`);
    }
  };
  const checkGetAtt = (target: string, attribute: string, where: string) => {
    const resource = resources[target];
    if (!resource) {
      problems.push(`${where}: Fn::GetAtt on undefined ${target}`);
      return;
    }
    const definition = resource.Type ? spec.resource(resource.Type) : undefined;
    if (definition && !(attribute in definition.attributes)) {
      problems.push(`${where}: ${resource.Type} ${target} has no attribute ${attribute}`);
    }
  };
  visit(template.Resources, "Resources");
  visit(template.Outputs, "Outputs");
  visit(template.Conditions, "Conditions");
  return problems;
}

if (import.meta.main) {
  const file = process.argv[2] ?? ".serverless/cloudformation-template-update-stack.json";
  const problems = validateTemplate(JSON.parse(readFileSync(file, "utf8")));
  for (const problem of problems) console.error(problem);
  console.log(problems.length === 0 ? `${file}: valid` : `${file}: ${problems.length} problem(s)`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
