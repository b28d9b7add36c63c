// Setup of every vitest project: each test file starts with none of the process-wide values
// (src/lib/platform/singleton.ts) an earlier file set, as a fresh process would, also when files share a worker.
import { beforeAll } from 'vitest';
import { resetSingletons } from '../../src/lib/platform/singleton';

beforeAll(() => resetSingletons());
