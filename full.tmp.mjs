import { PGlite } from '@electric-sql/pglite';
import { DurableNodeFS, DURABLE_START_PARAMS } from './src/lib/server/db/durable-nodefs.js';
import fs from 'node:fs';
const dir = '/tmp/tfs/db';
const pg = await PGlite.create({ fs: new DurableNodeFS(dir), startParams: [...DURABLE_START_PARAMS, '-c', 'shared_buffers=16MB'], initDbStartParams: ['-c','shared_buffers=16MB'] });
await pg.exec('create table if not exists t(x text)');
// fill the disk with a filler file
let filler = fs.openSync('/tmp/tfs/filler', 'w'); const buf = Buffer.alloc(1<<20);
try { for(;;) fs.writeSync(filler, buf); } catch (e) { console.log('filled', e.code); }
fs.closeSync(filler);
for (let i = 0; i < 50; i++) {
  try { await pg.query('insert into t select repeat(\'x\', 1000) from generate_series(1,200)'); }
  catch (e) { console.log('insert', i, e.code, e.message); if (i>5) break; }
}
try { console.log((await pg.query('select count(*) from t')).rows); } catch (e) { console.log('select', e.code, e.message); }
fs.unlinkSync('/tmp/tfs/filler');
try { await pg.query('insert into t values ($1)', ['after']); console.log('insert after ok'); } catch (e) { console.log('after', e.code, e.message); }
try { console.log((await pg.query('select count(*) from t')).rows); } catch (e) { console.log('select', e.code, e.message); }
await pg.close();
