export default async function globalSetup(): Promise<void> {
  process.env.SMOKE = '1';
}
