// Global setup of the HTTP tests, after the build check: the migrated data folder that servers started
// without a database of their own copy (tests/helpers/server.ts), made once before any worker starts.
import { migratedDataFolder } from './server';

export default async function makeServerTemplate(): Promise<void> {
	await migratedDataFolder();
}
