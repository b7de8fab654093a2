import { runCli } from './cli/index.js';
import { loadConfig } from './config.js';

const isEntryPoint = process.argv[1] && /main\.(ts|js)$/.test(process.argv[1]);
if (isEntryPoint || process.env.PARLEY_CLI === '1') {
  // The HTTP service (every route, the scheduler, the web app) is loaded only by `parley serve`:
  // the other commands start in about half the time without it.
  const serve = async () => (await import('./serve.js')).serve(loadConfig());
  const code = await runCli(process.argv, { serve });
  // A failed command may leave connections open: end the process with its exit code.
  if (code !== 0) process.exit(code);
}
