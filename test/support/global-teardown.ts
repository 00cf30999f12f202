export default async function globalTeardown(): Promise<void> {
  const services = globalThis.__LOCAL_SERVICES__;
  await Promise.all([services?.dynamoDb.stop(), services?.sns.close()]);
}
