import type { Reporter, RunnerTestFile, RunnerTask } from 'vitest';

function collect(task: RunnerTask, path: string, out: { name: string; state: string | undefined }[]) {
  const full = `${path} ${task.name}`;
  if (task.type === 'test') out.push({ name: full, state: task.result?.state });
  else if ('tasks' in task) for (const child of task.tasks) collect(child, full, out);
}

/** Prints how many tests ran on each storage backend, and a plain closing line. */
export default class BackendReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = []) {
    const tests: { name: string; state: string | undefined }[] = [];
    for (const file of files) collect(file, '', tests);
    const ran = tests.filter((t) => t.state === 'pass' || t.state === 'fail');
    const count = (marker: string) => ran.filter((t) => t.name.includes(marker)).length;
    const pglite = count('[pglite]');
    const postgres = count('[postgres]');
    const passed = ran.filter((t) => t.state === 'pass').length;
    const failed = ran.filter((t) => t.state === 'fail').length;
    const skipped = tests.length - ran.length;
    console.log(
      `\nTests per backend: pglite ${pglite}, postgres ${postgres}, no database ${ran.length - pglite - postgres}`,
    );
    console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
