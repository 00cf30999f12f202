/**
 * Confirming an SNS subscription as its endpoint's owner does: by visiting the SubscribeURL of the
 * confirmation request SNS sent it. The SNS emulator records what it sends to every protocol
 * (`GET /_emulator/deliveries`), so the request an e-mail address or another account's queue
 * received can be read there.
 */
import { waitFor } from './wait-for';

interface RecordedDelivery {
  subscriptionArn: string;
  type: string;
  body: string;
}

/** Every delivery the emulator recorded for the subscription, oldest first. */
export async function deliveriesTo(subscriptionArn: string, snsEndpoint = process.env.AWS_ENDPOINT_URL_SNS!): Promise<RecordedDelivery[]> {
  const response = await fetch(`${snsEndpoint}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
  const { deliveries } = (await response.json()) as { deliveries: RecordedDelivery[] };
  return deliveries.filter((delivery) => delivery.subscriptionArn === subscriptionArn);
}

/** The confirmation requests SNS sent the subscription's endpoint. */
export async function confirmationRequestsTo(subscriptionArn: string, snsEndpoint?: string): Promise<{ SubscribeURL: string }[]> {
  return (await deliveriesTo(subscriptionArn, snsEndpoint))
    .filter((delivery) => delivery.type === 'SubscriptionConfirmation')
    .map((delivery) => JSON.parse(delivery.body) as { SubscribeURL: string });
}

/** Follows the latest confirmation request of the subscription, as its endpoint's owner would. */
export async function confirmAsEndpointOwner(subscriptionArn: string, snsEndpoint?: string): Promise<void> {
  const requests = await waitFor('a confirmation request', async () => {
    const found = await confirmationRequestsTo(subscriptionArn, snsEndpoint);
    return found.length > 0 ? found : undefined;
  });
  const visit = await fetch(requests.at(-1)!.SubscribeURL, { signal: AbortSignal.timeout(5_000) });
  if (visit.status !== 200) throw new Error(`visiting SubscribeURL answered ${visit.status}: ${await visit.text()}`);
}
