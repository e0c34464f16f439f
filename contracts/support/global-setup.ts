// For direct `npx playwright test` runs: with no CONSOLE_BASE_URL, start the reference server and hand
// its address and key to the workers through the environment. `npm run conformance` does this itself.
import { loadConfig, setEnv } from '../../core/config.ts';
import { startReference } from '../../core/reference.ts';

export default async function globalSetup() {
  const config = loadConfig();
  if (config.baseUrl) return undefined;
  const server = await startReference({ apiKey: config.apiKey });
  setEnv({ CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey });
  return async () => server.stop();
}
