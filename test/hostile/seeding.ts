/**
 * The subscriptions each portal of the hostile-input suite starts with: seeds no request may
 * touch, and a scratch subscription where valid requests change one (update, activate, rename,
 * delete); and what a generator and the checks take from them.
 */
import { type HostileHarness, OPERATION_NAMES, portalOf } from './harness';
import type { GeneratorIds, OperationName } from './requests';
import { itemKey, type Snapshot, subscriptionSk } from './snapshot';

export interface SeededSubscription {
  readonly configId: string;
  readonly topicArn: string;
  readonly subscriptionArn: string;
}

export interface PortalSeeds {
  readonly portalId: string;
  readonly seeds: readonly SeededSubscription[];
  /** Only for update, activate, rename and delete. */
  scratch?: SeededSubscription;
}

export type Seeding = Readonly<Record<OperationName | 'bystander', PortalSeeds>>;

const SEED_BODIES = [
  { name: 'Seed one', endpoint: 'seed-one@example.com', protocol: 'email', events: ['asset_bank.media.create'] },
  {
    name: 'Seed two ✓ 😀',
    endpoint: 'arn:aws:sqs:us-east-1:123456789012:seed-two',
    protocol: 'sqs',
    events: ['workflow.job.create', 'antivirus.scan.failed'],
  },
];
export const SCRATCH_BODY = { name: 'Scratch', endpoint: 'scratch@example.com', protocol: 'email-json', events: ['asset_bank.media.updated'] };

const WITH_SCRATCH: readonly OperationName[] = ['update', 'activate', 'rename', 'delete'];

export async function createThrough(harness: HostileHarness, who: OperationName | 'bystander', body: Record<string, unknown>): Promise<SeededSubscription> {
  const answer = await harness.api(who, 'POST', '', body);
  const record = (answer.json as { record?: SeededSubscription } | undefined)?.record;
  if (answer.status !== 200 || !record) throw new Error(`seeding ${who} failed: ${answer.status} ${answer.text}`);
  return { configId: record.configId, topicArn: record.topicArn, subscriptionArn: record.subscriptionArn };
}

/** Two seeds in every portal (the bystander's too), and a scratch subscription where valid requests change one. */
export async function seedPortals(harness: HostileHarness): Promise<Seeding> {
  const seeding: Partial<Record<OperationName | 'bystander', PortalSeeds>> = {};
  for (const who of [...OPERATION_NAMES, 'bystander'] as const) {
    const seeds: SeededSubscription[] = [];
    for (const [index, body] of SEED_BODIES.entries()) seeds.push(await createThrough(harness, who, { ...body, name: `${body.name} (${who} ${index})` }));
    const entry: PortalSeeds = { portalId: who === 'bystander' ? 'portal-a' : portalOf(who), seeds };
    if (who !== 'bystander' && WITH_SCRATCH.includes(who)) entry.scratch = await createThrough(harness, who, SCRATCH_BODY);
    seeding[who] = entry;
  }
  return seeding as Seeding;
}

/** The ids a generator may use for `operation`: its own, and every other portal's as foreign. */
export function generatorIds(seeding: Seeding, operation: OperationName): GeneratorIds {
  const own = seeding[operation];
  const foreign = Object.entries(seeding)
    .filter(([who]) => who !== operation)
    .flatMap(([, portal]) => [...portal.seeds, ...(portal.scratch ? [portal.scratch] : [])].map((seed) => seed.configId));
  return { scratch: own.scratch?.configId, seeds: own.seeds.map((seed) => seed.configId), foreign };
}

/** Every seed item and every item that is not a subscription (the portals' counters), as they were at the start. */
export function protectedItems(seeding: Seeding, initial: Snapshot): Record<string, string> {
  const keys = new Set<string>();
  for (const portal of Object.values(seeding)) for (const seed of portal.seeds) keys.add(itemKey(portal.portalId, subscriptionSk(seed.configId)));
  for (const key of Object.keys(initial.items)) if (!key.split(' ')[1]!.startsWith('subscription#')) keys.add(key);
  return Object.fromEntries([...keys].map((key) => [key, initial.items[key]!]));
}

export function seedTopicArns(seeding: Seeding): string[] {
  return Object.values(seeding).flatMap((portal) => portal.seeds.map((seed) => seed.topicArn));
}
