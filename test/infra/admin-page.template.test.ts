/**
 * The admin page in the template (`-c adminPage=true`): a private bucket read only through
 * CloudFront's origin access control, the response-headers policy (CSP naming only the API's
 * origin and the issuer, frame-ancestors from its setting, HSTS, nosniff, no referrer), the files
 * and the settings written at deploy, CORS on the API for the page's origin only, cdk-nag clean or
 * acknowledged with reasons; and with the setting off, none of it. Synthesized without bundling.
 */
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import type { WebhookSubscriptionsStack } from '../../infra/aws/webhook-subscriptions-stack';
import { REQUIRED_CONTEXT, serviceApp } from '../support/cdk-app';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */
const PAGE_TYPES = [
  'AWS::S3::Bucket',
  'AWS::CloudFront::Distribution',
  'AWS::CloudFront::OriginAccessControl',
  'AWS::CloudFront::ResponseHeadersPolicy',
  'Custom::CDKBucketDeployment',
  'Custom::AWS',
];
const PLATFORM = 'https://platform.example.com';

function synthesized(context: Record<string, unknown>): { stack: WebhookSubscriptionsStack; template: Template } {
  const { stack } = serviceApp({ bundle: false, context: { ...REQUIRED_CONTEXT, ...context } });
  return { stack, template: Template.fromStack(stack) };
}

/** An Fn::Join as text, each token written as {Ref:Id} or {Id.Attribute}. */
function joined(value: any): string {
  if (typeof value === 'string') return value;
  const token = (part: any) => (part.Ref ? `{Ref:${part.Ref}}` : `{${part['Fn::GetAtt'].join('.')}}`);
  return value['Fn::Join'][1].map((part: any) => (typeof part === 'string' ? part : token(part))).join('');
}

const typesIn = (template: Template) => new Set(Object.values<any>(template.toJSON().Resources).map((resource) => resource.Type));

describe('with adminPage off (the default)', () => {
  it('has no bucket, distribution, headers policy, page deployment or CORS', () => {
    const { template } = synthesized({});
    const types = typesIn(template);
    expect(PAGE_TYPES.filter((type) => types.has(type))).toEqual([]);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
    expect(Object.keys(template.toJSON().Outputs)).not.toContain('AdminPageUrl');
  });
});

describe('with adminPage=true', () => {
  let stack: WebhookSubscriptionsStack;
  let template: Template;
  let resources: Record<string, any>;
  let assemblyDirectory: string;
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  const apiId = () => ofType('AWS::ApiGatewayV2::Api')[0]![0];

  beforeAll(() => {
    const synthesizedApp = serviceApp({ bundle: false, context: { ...REQUIRED_CONTEXT, adminPage: 'true', adminPageFrameAncestors: PLATFORM } });
    stack = synthesizedApp.stack;
    assemblyDirectory = synthesizedApp.app.synth().directory;
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
  }, 120_000);

  it('keeps the files in a bucket blocking all public access, TLS only, encrypted', () => {
    expect(ofType('AWS::S3::Bucket')).toHaveLength(1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    const [, policy] = ofType('AWS::S3::BucketPolicy')[0]!;
    const statements: any[] = policy.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });

  it('lets only this distribution read it, through origin access control', () => {
    const [distributionId, distribution] = ofType('AWS::CloudFront::Distribution')[0]!;
    const [oacId] = ofType('AWS::CloudFront::OriginAccessControl')[0]!;
    const [origin] = distribution.Properties.DistributionConfig.Origins;
    expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    const [, policy] = ofType('AWS::S3::BucketPolicy')[0]!;
    const allows = (policy.Properties.PolicyDocument.Statement as any[]).filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Condition: { StringEquals: { 'AWS:SourceArn': expect.objectContaining({ 'Fn::Join': expect.arrayContaining([expect.arrayContaining([{ Ref: distributionId }])]) }) } },
      }),
    ]);
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      DefaultRootObject: 'index.html',
      DefaultCacheBehavior: { ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'] },
    });
  });

  it('serves it with the headers policy: a CSP connecting only to itself, the API and the issuer, framed only by the listed origin', () => {
    const [policyId, policy] = ofType('AWS::CloudFront::ResponseHeadersPolicy')[0]!;
    const [, distribution] = ofType('AWS::CloudFront::Distribution')[0]! as [string, any];
    expect(distribution.Properties.DistributionConfig.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    const headers = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(headers).toMatchObject({
      StrictTransportSecurity: { AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true },
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
    });
    // X-Frame-Options cannot name the listed origin, so it is left to frame-ancestors.
    expect(headers.FrameOptions).toBeUndefined();
    expect(joined(headers.ContentSecurityPolicy.ContentSecurityPolicy)).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
        `connect-src 'self' {${apiId()}.ApiEndpoint} ${new URL(REQUIRED_CONTEXT.jwtIssuer).origin}; ` +
        `object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors ${PLATFORM}`,
    );
    expect(headers.ContentSecurityPolicy.Override).toBe(true);
  });

  it("writes the page's files, its settings (no developer sign-in) and the API's document at deploy", () => {
    const [, deployment] = ofType('Custom::CDKBucketDeployment')[0]!;
    expect(deployment.Properties.DestinationBucketName).toEqual({ Ref: ofType('AWS::S3::Bucket')[0]![0] });
    expect(deployment.Properties.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    const staged = (index: number) => join(assemblyDirectory, `asset.${deployment.Properties.SourceObjectKeys[index].replace(/\.zip$/, '')}`);
    expect(readdirSync(staged(0)).sort()).toEqual(readdirSync(join(PROJECT_ROOT, 'admin')).sort());
    const settings = JSON.parse(readFileSync(join(staged(1), 'settings.json'), 'utf8'));
    // Tokens are written as markers, which the deployment replaces with the values of SourceMarkers.
    expect(settings).toEqual({
      apiBaseUrl: '<<marker:0xbaba:0>>',
      openApiDocument: 'openapi.json',
      issuer: REQUIRED_CONTEXT.jwtIssuer,
      authorizationEndpoint: `${REQUIRED_CONTEXT.jwtIssuer}/v6/authentication/oauth2/auth`,
      tokenEndpoint: `${REQUIRED_CONTEXT.jwtIssuer}/v6/authentication/oauth2/token`,
      clientId: 'webhooks-admin-page',
      redirectUri: 'https://<<marker:0xbaba:1>>/',
      scopes: 'webhooks.config:read webhooks.config:write',
      portalClaim: 'portal_id',
    });
    const [distributionId] = ofType('AWS::CloudFront::Distribution')[0]!;
    expect(deployment.Properties.SourceMarkers[1]).toEqual({
      '<<marker:0xbaba:0>>': { 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] },
      '<<marker:0xbaba:1>>': { 'Fn::GetAtt': [distributionId, 'DomainName'] },
    });
    const document = JSON.parse(readFileSync(join(staged(2), 'openapi.json'), 'utf8'));
    expect(document.components.securitySchemes).toBeDefined();
    expect(JSON.stringify(document)).toContain(`${REQUIRED_CONTEXT.jwtIssuer}/v6/authentication/oauth2/token`);
  });

  it("allows CORS on the API for the distribution's origin only, so API Gateway answers preflights", () => {
    const [, cors] = ofType('Custom::AWS')[0]!;
    const [distributionId] = ofType('AWS::CloudFront::Distribution')[0]!;
    const cors_ = { AllowOrigins: [`https://{${distributionId}.DomainName}`], AllowMethods: ['GET', 'POST', 'PUT', 'DELETE'], AllowHeaders: ['authorization', 'content-type', 'idempotency-key'], MaxAge: 3600 };
    for (const phase of ['Create', 'Update']) {
      expect(JSON.parse(joined(cors.Properties[phase]))).toMatchObject({
        service: 'ApiGatewayV2',
        action: 'UpdateApi',
        parameters: { ApiId: `{Ref:${apiId()}}`, CorsConfiguration: cors_ },
      });
    }
    expect(JSON.parse(joined(cors.Properties.Delete))).toMatchObject({ action: 'DeleteCorsConfiguration', parameters: { ApiId: `{Ref:${apiId()}}` } });
    // The API itself declares none (that would make a cycle with the CSP naming the API), and no OPTIONS route.
    expect(resources[apiId()].Properties.CorsConfiguration).toBeUndefined();
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey as string);
    expect(routes.filter((key) => key.startsWith('OPTIONS'))).toEqual([]);
  });

  it('allows a named origin instead when the operator gives one', () => {
    const { template: namedTemplate } = synthesized({ adminPage: 'true', adminPageOrigin: 'https://webhooks.example.com' });
    const [, cors] = Object.entries<any>(namedTemplate.toJSON().Resources).filter(([, resource]) => resource.Type === 'Custom::AWS')[0]!;
    expect(JSON.parse(joined(cors.Properties.Create)).parameters.CorsConfiguration.AllowOrigins).toEqual(['https://webhooks.example.com']);
    expect(namedTemplate.toJSON().Outputs.AdminPageUrl.Value).toBe('https://webhooks.example.com/');
  });

  it('denies framing altogether when no origin is listed', () => {
    const { template: unlisted } = synthesized({ adminPage: 'true' });
    unlisted.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: { SecurityHeadersConfig: { FrameOptions: { FrameOption: 'DENY', Override: true } } },
    });
  });

  it('leaves cdk-nag nothing unacknowledged, and each acknowledgment gives a reason', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
    const reasons = stack.node
      .findAll()
      .filter((construct) => construct.node.path.includes('AdminPage') || /CDKBucketDeployment|AWS679f53fac002430cb0da5b7982bd2287/.test(construct.node.path))
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.values(entry.data as Record<string, string>)),
      );
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason.length).toBeGreaterThan(60);
  });

  it('refuses a frame ancestor that is not an https origin', () => {
    expect(() => synthesized({ adminPage: 'true', adminPageFrameAncestors: 'http://platform.example.com' })).toThrow(/adminPageFrameAncestors must be https:\/\/ origins/);
  });
});
