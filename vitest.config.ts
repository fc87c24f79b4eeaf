import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Most files spend their time waiting on children, servers, sockets and
// clocks rather than on the CPU: two forks even on a 2-core machine (vitest's
// default there is one) halve the suite's wall time. Files share nothing by
// name (temporary directories, port 0, namespaces named per process).
const forks = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: forks,
    minWorkers: forks,
  },
});
