/** infra/validate-template.ts against hand-made templates: each kind of fault it must catch, and a clean pass. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateTemplate } from "../../infra/validate-template.ts";

const accessEntry = {
  Type: "AWS::EKS::AccessEntry",
  Properties: {
    ClusterName: "prod",
    PrincipalArn: { "Fn::GetAtt": ["Role", "Arn"] },
    AccessPolicies: [
      {
        PolicyArn: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        AccessScope: { Type: "namespace", Namespaces: ["apps"] },
      },
    ],
  },
};
const role = {
  Type: "AWS::IAM::Role",
  Properties: { AssumeRolePolicyDocument: { Version: "2012-10-17", Statement: [] } },
};

test("a template with an access entry, a role and intrinsics is valid", () => {
  assert.deepEqual(
    validateTemplate({
      Resources: { Role: role, Entry: accessEntry },
      Outputs: { Arn: { Value: { "Fn::Sub": "${Role.Arn} in ${AWS::Region}" } } },
    }),
    [],
  );
});

test("unknown types, missing required and unknown properties at any depth, bad shapes are all reported", () => {
  const problems = validateTemplate({
    Resources: {
      Role: { ...role, Properties: { ...role.Properties, Polices: [] } },
      Entry: {
        ...accessEntry,
        Properties: {
          ClusterName: ["prod"],
          AccessPolicies: [{ PolicyArn: "arn", AccessScope: { Type: "cluster", Namespace: ["x"] } }],
        },
      },
      Queue: { Type: "AWS::SQS::Queueue", Properties: {} },
      Alarm: {
        Type: "AWS::CloudWatch::Alarm",
        Properties: { ComparisonOperator: "GreaterThanThreshold", EvaluationPeriods: "one" },
      },
    },
  });
  assert.deepEqual(problems.sort(), [
    "Resources.Alarm.Properties.EvaluationPeriods: expected a number",
    "Resources.Entry.Properties.AccessPolicies[0].AccessScope.Namespace: unknown property",
    "Resources.Entry.Properties.ClusterName: expected a string",
    "Resources.Entry.Properties.PrincipalArn: required property missing",
    "Resources.Queue.Type: AWS::SQS::Queueue is not a CloudFormation resource type",
    "Resources.Role.Properties.Polices: unknown property",
  ]);
});

test("references must name resources, parameters, pseudo parameters or attributes that exist", () => {
  const problems = validateTemplate({
    Parameters: { Stage: { Type: "String" }, Role: { Type: "String" } },
    Resources: {
      Role: { ...role, DependsOn: ["Nothing"] },
      Entry: {
        ...accessEntry,
        Properties: {
          ...accessEntry.Properties,
          ClusterName: { "Fn::Sub": "${Stage}-${AWS::Region}-${Missing}" },
          PrincipalArn: { "Fn::GetAtt": ["Role", "Arnn"] },
          Username: { Ref: "Ghost" },
        },
      },
    },
    Outputs: { X: { Value: { "Fn::GetAtt": "Gone.Arn" } } },
  });
  assert.deepEqual(problems.sort(), [
    "Outputs.X.Value: Fn::GetAtt on undefined Gone",
    "Parameters.Role: a resource has the same logical id",
    "Resources.Entry.Properties.ClusterName: ${Missing} names nothing",
    "Resources.Entry.Properties.PrincipalArn: AWS::IAM::Role Role has no attribute Arnn",
    "Resources.Entry.Properties.Username: Ref to undefined Ghost",
    "Resources.Role.DependsOn: no resource Nothing",
  ]);
});
