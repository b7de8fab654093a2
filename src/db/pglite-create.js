// Creates a new PGlite data directory (initdb) and exits. src/db/pglite.ts runs it as a
// process of its own: initdb grows the WebAssembly memory of its thread to about 600 MB, and
// after such a thread has ended the C library still keeps about 100 MB of what it freed, for
// the life of the process. Plain JavaScript, so it starts under plain node.
import { argv } from 'node:process';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const [dataDir, settings] = argv.slice(2);
const pglite = await PGlite.create({
  dataDir,
  extensions: { pg_trgm },
  postgresqlconf: JSON.parse(settings ?? '[]'),
});
await pglite.close();
