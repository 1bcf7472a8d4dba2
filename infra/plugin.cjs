/**
 * The project's osls plugin (serverless.yml `plugins: - ./infra/plugin.cjs`), for what needs the
 * whole packaged template:
 *   1. adds the alarms and the dashboard (infra/monitoring.cjs) once osls has merged `resources`;
 *   2. checks the final template against the CloudFormation resource specification
 *      (infra/validate-template.ts) and the operational rules of infra/checks.cjs (queue visibility,
 *      dead-letter queues, one role per function), and fails the package/deploy on any problem,
 *      before anything is uploaded.
 */
const { checkOperations } = require("./checks.cjs");
const { buildMonitoring } = require("./monitoring.cjs");

class HelmStatusPlugin {
  constructor(serverless, _options, { log } = {}) {
    this.serverless = serverless;
    this.log = log;
    this.hooks = {
      "after:aws:package:finalize:mergeCustomProviderResources": () => this.addMonitoring(),
      "before:aws:package:finalize:saveServiceState": () => this.validate(),
    };
  }

  addMonitoring() {
    const { service } = this.serverless;
    const provider = this.serverless.getProvider("aws");
    const template = service.provider.compiledCloudFormationTemplate;
    const functions = service
      .getAllFunctions()
      .map((key) => ({ key, logicalId: provider.naming.getLambdaLogicalId(key) }));
    const settings = service.custom?.settings?.alarms;
    if (!settings) throw new Error("custom.settings (infra/settings.cjs) is missing: the alarms need its thresholds");
    const { Resources } = buildMonitoring({
      template,
      functions,
      definitions: service.custom?.monitoring?.alarms,
      settings,
      service: service.service,
      stage: provider.getStage(),
      log: (message) => this.log?.notice(message),
    });
    Object.assign(template.Resources, Resources);
  }

  async validate() {
    // TypeScript, loaded by Node's type stripping (Node >= 22.18; the project requires 24).
    const { validateTemplate } = await import("./validate-template.ts");
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const problems = [...validateTemplate(template), ...checkOperations(template)];
    if (problems.length > 0) {
      throw new Error(`the packaged template has problems:\n  ${problems.join("\n  ")}`);
    }
    this.log?.info("template checked against the CloudFormation resource specification");
  }
}

module.exports = HelmStatusPlugin;
