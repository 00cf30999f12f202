/**
 * `npm start`: the whole service on this machine (stack/local-stack.ts), configured by environment
 * variables, with a printout of where everything is and how to call it. Ctrl-C (SIGINT) or
 * SIGTERM stops all of it, DynamoDB Local's Java process included, and exits 0.
 *
 *   PORT (3000)  DYNAMODB_PORT (8000)  SNS_PORT (9911)  EVENTS_PORT (9912)  DATA_DIR (.data)  IN_MEMORY=1
 *   EVENT_BUS_NAME (webhooks-portal-events)  LOG_FORMAT (pretty; json for the lines Lambda writes)
 *   LOCAL_OAUTH_CLIENTS (infra/local/auth/clients.json)  and the service's own variables.
 */
import { relative } from 'node:path';
import {
  DEFAULT_DATA_DIR,
  DEFAULT_PORTS,
  DEFAULT_TABLE_NAME,
  LOCAL_CREDENTIALS,
  type LocalStack,
  type LocalStackPart,
  PortInUseError,
  startLocalStack,
} from './stack/local-stack';
import { SCOPES } from '../../shared/operations';
import { DEFAULT_CLIENTS_FILE } from './auth/clients';
import { settingsInEffectLines } from './settings-in-effect';

/** How long stopping may take before the process exits anyway (DynamoDB Local gets 5 s before SIGKILL). */
const STOP_TIMEOUT_MS = 15_000;

/** The variable that chooses each part's port. */
const PORT_VARIABLES: Record<LocalStackPart, string> = { api: 'PORT', dynamoDb: 'DYNAMODB_PORT', sns: 'SNS_PORT', events: 'EVENTS_PORT' };

function portFromEnv(name: string, fallback: number): number {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new Error(`${name} must be a port number (0-65535), not "${text}".`);
  return port;
}

/** The variables `npm run reconcile` needs to find this stack, when it does not run on the default ports. */
function portsPrefix(stack: LocalStack): string {
  const dynamoDbPort = new URL(stack.dynamoDb.endpoint).port;
  const snsPort = new URL(stack.sns.endpoint).port;
  const settings = [
    ...(dynamoDbPort !== String(DEFAULT_PORTS.dynamoDb) ? [`DYNAMODB_PORT=${dynamoDbPort}`] : []),
    ...(snsPort !== String(DEFAULT_PORTS.sns) ? [`SNS_PORT=${snsPort}`] : []),
    ...(stack.tableName !== DEFAULT_TABLE_NAME ? [`TABLE_NAME=${stack.tableName}`] : []),
  ];
  return settings.length > 0 ? `${settings.join(' ')} ` : '';
}

/**
 * How a webhook receiver verifies the emulator's messages (docs/receiving.md): their URLs are
 * https:// ones on the emulator's port, under the stack's own certificate authority.
 */
function receiverLines(stack: LocalStack): string[] {
  const { file } = stack.sns.certificateAuthority;
  return [
    `Webhook receivers (docs/receiving.md): messages' SigningCertURL and SubscribeURL are ${stack.sns.httpsEndpoint}/..., under this CA: ${file}`,
    `  Node: NODE_EXTRA_CA_CERTS=${file}   other stacks: trust that file`,
    `  AWS's sns-validator: new MessageValidator(/^127\\.0\\.0\\.1(:\\d+)?$/)   reference receiver: ALLOWED_CERT_ORIGIN=${stack.sns.httpsEndpoint}`,
    '  sns-payload-validator accepts certificates of AWS hosts only: it refuses these (docs/receiving.md: testing a receiver built on it)',
  ];
}

/** What a developer needs to use the stack, ready to paste. */
async function printout(stack: LocalStack, clientsFile: string, shell: NodeJS.ProcessEnv): Promise<string> {
  // The list command needs a client that may read.
  const client = stack.clients.find((candidate) => candidate.scopes.includes(SCOPES.read)) ?? stack.clients[0];
  const token = await stack.issueToken(client!.clientId);
  const listUrl = `${stack.apiBaseUrls[0]}/list`;
  const where = stack.dataDir ? `state kept in ${relative(process.cwd(), stack.dataDir) || '.'}` : 'in memory: nothing is kept';
  const lines = [
    '',
    `Webhook subscriptions service running locally (${where})`,
    '',
    'API base URLs (every route exists under both):',
    ...stack.apiBaseUrls.map((url) => `  ${url}`),
    `Token endpoint:  ${stack.tokenUrl}   (issuer ${stack.issuer}, audience ${stack.audience})`,
    `OpenAPI:         ${stack.openApiUrl}`,
    `Admin page:      ${stack.adminUrl}   (sign in with a client below)`,
    `OAuth clients:   ${relative(process.cwd(), clientsFile)}`,
    ...stack.clients.map((c) => `  ${c.clientId} / ${c.clientSecret}   portal ${c.portalId}   scopes: ${c.scopes.join(' ')}`),
    `DynamoDB Local:  ${stack.dynamoDb.endpoint}   (table ${stack.tableName})`,
    `SNS emulator:    ${stack.sns.endpoint}   (dead letters: ${stack.sns.endpoint}/_emulator/dead-letters)`,
    `EventBridge:     ${stack.events.endpoint}   (PutEvents; bus ${stack.eventBusName}, source portal.events)`,
    '',
    ...settingsInEffectLines(shell),
    '',
    ...receiverLines(stack),
    '',
    `Get a token (client ${client!.clientId}):`,
    `  curl -s -X POST ${stack.tokenUrl} -d grant_type=client_credentials ` +
      `-d client_id=${client!.clientId} -d client_secret=${client!.clientSecret} -w '\\n'`,
    '',
    `List the subscriptions of ${client!.portalId} (this token is valid for ${token.expires_in / 60} minutes):`,
    `  curl -s ${listUrl} -H 'Authorization: Bearer ${token.access_token}' -w '\\n'`,
    '',
    'The AWS CLI against the emulators (any credentials work; these are the ones the service uses):',
    `  export AWS_ACCESS_KEY_ID=${LOCAL_CREDENTIALS.accessKeyId} AWS_SECRET_ACCESS_KEY=${LOCAL_CREDENTIALS.secretAccessKey} ` +
      `AWS_REGION=${stack.region} AWS_DEFAULT_REGION=${stack.region}`,
    `  aws --endpoint-url ${stack.dynamoDb.endpoint} dynamodb scan --table-name ${stack.tableName}`,
    `  aws --endpoint-url ${stack.sns.endpoint} sns list-topics`,
    `  aws --endpoint-url ${stack.events.endpoint} events put-events --entries '[{"EventBusName": "${stack.eventBusName}", ` +
      `"Source": "portal.events", "DetailType": "asset_bank.media.create", "Detail": "{\\"portalId\\": \\"${client!.portalId}\\", \\"mediaId\\": \\"m-1\\"}"}]'`,
    '',
    'Restore the agreement of table and SNS after failures (docs/reconciliation.md), from another terminal:',
    `  ${portsPrefix(stack)}npm run reconcile -- --dry-run`,
    '',
    'Ctrl-C stops everything.',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  // The settings as the shell gave them, before the stack sets its own (printed where they differ from the defaults).
  const shell = { ...process.env };
  // The handlers' log lines, one short line each for whoever watches this terminal.
  process.env.LOG_FORMAT = process.env.LOG_FORMAT?.trim() || 'pretty';
  // Signals are taken from the start: one arriving while the stack starts stops it once started,
  // rather than leaving DynamoDB Local's Java process running without its parent.
  let stack: LocalStack | undefined;
  let stopRequested = false;
  const shutDown = (running: LocalStack) =>
    running.stop().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error('Stopping failed:', error);
        process.exit(1);
      },
    );
  // The same signal can arrive more than once (from the terminal and relayed by npm and tsx):
  // only the first counts, and a stop that hangs still ends the process, Java included.
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested) return;
    stopRequested = true;
    console.log(`\n${signal}: stopping the gateway, the event bus, the SNS emulator and DynamoDB Local...`);
    setTimeout(() => {
      console.error(`Still stopping after ${STOP_TIMEOUT_MS / 1000} s: exiting anyway.`);
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    if (stack) void shutDown(stack);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const clientsFile = process.env.LOCAL_OAUTH_CLIENTS?.trim() || DEFAULT_CLIENTS_FILE;
  stack = await startLocalStack({
    port: portFromEnv('PORT', DEFAULT_PORTS.api),
    dynamoDbPort: portFromEnv('DYNAMODB_PORT', DEFAULT_PORTS.dynamoDb),
    snsPort: portFromEnv('SNS_PORT', DEFAULT_PORTS.sns),
    eventsPort: portFromEnv('EVENTS_PORT', DEFAULT_PORTS.events),
    dataDir: process.env.DATA_DIR?.trim() || DEFAULT_DATA_DIR,
    inMemory: process.env.IN_MEMORY === '1',
    clientsFile,
    log: (line) => console.log(line),
  });
  if (stopRequested) return shutDown(stack);

  console.log(await printout(stack, clientsFile, shell));
}

main().catch((error: unknown) => {
  if (error instanceof PortInUseError) {
    const variable = PORT_VARIABLES[error.part];
    console.error(
      `npm start failed: ${error.message} Stop what listens there (another npm start?), or choose another port: ${variable}=${error.port + 100} npm start`,
    );
    process.exit(1);
  }
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
