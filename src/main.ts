import { runCli } from './cli/index.js';
import { loadConfig } from './config.js';
import { serve } from './serve.js';

const isEntryPoint = process.argv[1] && /main\.(ts|js)$/.test(process.argv[1]);
if (isEntryPoint || process.env.PARLEY_CLI === '1') {
  const code = await runCli(process.argv, { serve: () => serve(loadConfig()) });
  // A failed command may leave connections open: end the process with its exit code.
  if (code !== 0) process.exit(code);
}
