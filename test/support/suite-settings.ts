/**
 * Settings a suite gives the handlers through process.env: they read them when the stack imports
 * them (in beforeAll), so they are set as the suite file loads; the answer gives back what was there.
 */
export function setSuiteSettings(settings: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
  Object.assign(process.env, settings);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
