/**
 * Entry of the CDK app (cdk.json): `npx cdk synth -c jwtIssuer=https://... -c jwtAudience=...`.
 * The stack is environment-agnostic (no account or region lookups), so synth works offline
 * and without credentials; `cdk deploy` takes both from the caller's AWS profile.
 */
import { App } from 'aws-cdk-lib';
import { type ContextKey, DeploymentSettingsError, deploymentSettingsFrom } from './deployment-settings';
import { writeStackOpenApiDocument } from './stack-openapi-document';
import { addWebhookSubscriptions } from './webhook-subscriptions-app';

try {
  const app = new App();
  addWebhookSubscriptions(app);
  // The API's OpenAPI document for these settings, beside the template (docs/deploy.md).
  writeStackOpenApiDocument(app.outdir, deploymentSettingsFrom((key: ContextKey) => app.node.tryGetContext(key), Object.keys(app.node.getAllContext())));
} catch (error) {
  // A setting the operator has to fix: say what, without a stack trace in the way.
  if (!(error instanceof DeploymentSettingsError)) throw error;
  console.error(error.message);
  process.exit(1);
}
