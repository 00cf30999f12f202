/** Polls until `probe` gives a value, for at most `timeoutMs` and at most 1,000 polls. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let poll = 0; poll < 1_000; poll++) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
