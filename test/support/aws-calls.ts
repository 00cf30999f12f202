/**
 * The AWS calls the service's own clients (shared/aws/) make while a piece of code runs, counted
 * by SDK middleware at the initialize step: one entry per command, retries not included.
 */
import { randomUUID } from 'node:crypto';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';

/** Each command's name, followed by its TopicArn when `withTopic` and the command has one. */
export async function awsCallsDuring(run: () => Promise<unknown>, { withTopic = false } = {}): Promise<string[]> {
  const calls: string[] = [];
  const name = `count-calls-${randomUUID()}`;
  for (const client of [snsClient, dynamoDbClient] as const) {
    (client.middlewareStack as typeof snsClient.middlewareStack).add(
      (next, context) => async (args) => {
        const topicArn = withTopic ? (args.input as { TopicArn?: string }).TopicArn : undefined;
        calls.push(topicArn ? `${context.commandName} ${topicArn}` : String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  try {
    await run();
  } finally {
    snsClient.middlewareStack.remove(name);
    dynamoDbClient.middlewareStack.remove(name);
  }
  return calls;
}
