/**
 * The admin page on AWS (`-c adminPage=true`): the files of admin/ in a private S3 bucket (all
 * public access blocked, TLS only) read by CloudFront through origin access control, served with
 * a response-headers policy (the page's CSP, HSTS, nosniff, no referrer), and the page's settings
 * (settings.json) and the API's document (openapi.json) written beside them at deploy, from the
 * stack's own values: no rebuild of the page for a deployment. CORS on the HTTP API allows the
 * page's origin only.
 *
 * CORS is set by a custom resource after both exist: the CSP names the API's origin and the API's
 * CORS the distribution's domain, so declaring both in their resources would make a cycle.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { AwsCustomResource, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { adminPageContentSecurityPolicy, originOf } from '../../shared/contract/admin-page-policy';
import { buildOpenApiDocument } from '../../shared/contract/openapi-document';
import { AUTHORIZATION_PATH, TOKEN_PATH } from '../../shared/contract/token-endpoint';
import type { AdminPageSettings } from './deployment-settings';

const ADMIN_FOLDER = fileURLToPath(new URL('../../admin/', import.meta.url));
/** The headers a call of the page sends: its bearer token, JSON bodies, and a recovery's Idempotency-Key. */
const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key'];
const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

export interface AdminPageHostingProps {
  readonly page: AdminPageSettings;
  /** The token issuer (jwtIssuer); the authorization and token endpoints are under it. */
  readonly issuer: string;
  readonly portalClaim: string;
  readonly eventKinds: readonly string[];
  readonly api: HttpApi;
}

export class AdminPageHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly headers: ResponseHeadersPolicy;
  /** https://<distribution domain>, or the origin the operator named. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: AdminPageHostingProps) {
    super(scope, id);
    const { page, api } = props;
    const issuer = props.issuer.replace(/\/+$/, '');

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // Nothing in it but what the next deploy writes again.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The bucket holds only the page\'s public files, written by the deployment and read by CloudFront alone (origin access control); who changed it is in CloudTrail, who read it is in the API\'s access logs that count.',
    });

    // https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/understanding-response-headers-policies.html
    this.headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'The admin page: its CSP, HSTS, nosniff, no referrer.',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: adminPageContentSecurityPolicy({ connectTo: [api.apiEndpoint, originOf(issuer)], frameAncestors: page.frameAncestors }),
          override: true,
        },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        // X-Frame-Options cannot name origins: only when no site may frame the page.
        ...(page.frameAncestors.length === 0 ? { frameOptions: { frameOption: HeadersFrameOption.DENY, override: true } } : {}),
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'The webhook subscriptions admin page',
      defaultRootObject: 'index.html',
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        // https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-restricting-access-to-s3.html
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
      },
    });
    const distributionNag = Validations.of(this.distribution);
    distributionNag.acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'The page is for every portal\'s people wherever they are; the API behind it decides who may do what.',
    });
    distributionNag.acknowledge({
      id: 'AwsSolutions-CFR2',
      reason: 'Static files only, cached at the edge; the API it calls has its own throttling and JWT authorizer. Attach a web ACL of your own if your organisation requires one.',
    });
    distributionNag.acknowledge({
      id: 'AwsSolutions-CFR3',
      reason: 'Access logs of static files would cost more than they tell; every call that matters reaches the API, whose access logs keep it.',
    });
    distributionNag.acknowledge({
      id: 'AwsSolutions-CFR4',
      reason: 'The distribution uses its cloudfront.net name and certificate, whose TLS minimum CloudFront sets; a custom domain with a certificate of your own can require TLSv1.2_2021.',
    });
    this.origin = page.origin ?? `https://${this.distribution.distributionDomainName}`;

    const apiUrl = api.apiEndpoint;
    const settings = {
      apiBaseUrl: apiUrl,
      openApiDocument: 'openapi.json',
      issuer,
      authorizationEndpoint: issuer + AUTHORIZATION_PATH,
      tokenEndpoint: issuer + TOKEN_PATH,
      clientId: page.clientId,
      redirectUri: `${this.origin}/`,
      scopes: page.scopes,
      portalClaim: props.portalClaim,
    };
    const deployment = new BucketDeployment(this, 'Deployment', {
      destinationBucket: this.bucket,
      sources: [
        Source.asset(ADMIN_FOLDER),
        // Written at deploy, with the deployment's values (tokens resolved by CloudFormation).
        Source.jsonData('settings.json', settings),
        Source.jsonData('openapi.json', buildOpenApiDocument({ eventKinds: props.eventKinds, tokenUrl: issuer + TOKEN_PATH })),
      ],
      // A deploy is seen at once: CloudFront revalidates each file with S3 (by its ETag).
      cacheControl: [CacheControl.noCache()],
      memoryLimit: 256,
    });
    acknowledgeProviderFindings(deployment, 'copies the page\'s files from the CDK asset bucket into the page\'s bucket at deploy', this.bucket);

    // https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html: with a CORS
    // configuration API Gateway answers preflight OPTIONS requests itself, before the authorizer.
    const cors = {
      AllowOrigins: [this.origin],
      AllowMethods: CORS_ALLOWED_METHODS,
      AllowHeaders: CORS_ALLOWED_HEADERS,
      MaxAge: 3600,
    };
    const apiArn = Stack.of(this).formatArn({ service: 'apigateway', account: '', resource: '/apis', resourceName: api.apiId });
    const corsResource = new AwsCustomResource(this, 'Cors', {
      installLatestAwsSdk: false,
      onCreate: {
        service: 'ApiGatewayV2',
        action: 'UpdateApi',
        parameters: { ApiId: api.apiId, CorsConfiguration: cors },
        physicalResourceId: PhysicalResourceId.of(`${api.apiId}-cors`),
      },
      onUpdate: {
        service: 'ApiGatewayV2',
        action: 'UpdateApi',
        parameters: { ApiId: api.apiId, CorsConfiguration: cors },
        physicalResourceId: PhysicalResourceId.of(`${api.apiId}-cors`),
      },
      onDelete: { service: 'ApiGatewayV2', action: 'DeleteCorsConfiguration', parameters: { ApiId: api.apiId } },
      policy: {
        statements: [
          new PolicyStatement({ actions: ['apigateway:PATCH'], resources: [apiArn] }),
          new PolicyStatement({ actions: ['apigateway:DELETE'], resources: [`${apiArn}/cors`] }),
        ],
      },
    });
    corsResource.node.addDependency(api);
    acknowledgeProviderFindings(corsResource, 'sets the API\'s CORS configuration at deploy');

    new CfnOutput(Stack.of(this), 'AdminPageUrl', {
      description: 'The admin page; register its URL as the redirect URI of the page\'s OAuth client (docs/deploy.md).',
      value: `${this.origin}/`,
    });
  }
}

/**
 * cdk-nag's findings on the functions the CDK provides for its own custom resources (the bucket
 * deployment, the SDK call), which run only during a deploy: their logging policy and grants are
 * the CDK's. Each finding by its full id, so no other finding passes with it.
 */
function acknowledgeProviderFindings(construct: Construct, what: string, bucket?: Bucket): void {
  const stack = Stack.of(construct);
  const objects = (actions: string[]) => actions.map((action) => `AwsSolutions-IAM5[Action::${action}]`);
  const findings = [
    'AwsSolutions-L1',
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    ...(bucket
      ? [
          ...objects(['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*']),
          'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
          `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>/*]`,
        ]
      : []),
  ];
  for (const child of stack.node.children) {
    if (!/^(Custom::CDKBucketDeployment|AWS679f53fac002430cb0da5b7982bd2287)/.test(child.node.id)) continue;
    if (bucket ? !child.node.id.startsWith('Custom::CDKBucketDeployment') : child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
    for (const id of findings) {
      Validations.of(child).acknowledge({
        id,
        reason: id === 'AwsSolutions-L1'
          ? `The CDK's provider function that ${what} runs on the runtime its CDK release pins; it runs only during a deploy.`
          : id.includes('IAM4')
          ? `The CDK's provider function that ${what} logs with AWSLambdaBasicExecutionRole, as the CDK makes it; it runs only during a deploy.`
          : `The CDK's provider function that ${what} is granted the object and listing wildcards of the CDK asset bucket and of the page's bucket, the two it copies between.`,
      });
    }
  }
}
