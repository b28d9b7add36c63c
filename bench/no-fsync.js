// @ts-check
// Preload for the "fsync off" side of bench/durability-portal.js: `node --import ./bench/no-fsync.js build/index.js`.
// The same build with the same Postgres settings (fsync=on, wal_sync_method=fsync), with only the
// operating system's fsync taken away: fs.fsyncSync becomes a no-op, and syncBuiltinESMExports() makes
// the bundled server's named import (`import { fsyncSync } from 'node:fs'`, embedded.js) see it too.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

fs.fsyncSync = () => {};
syncBuiltinESMExports();
