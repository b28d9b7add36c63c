// @ts-check
// The db:* commands run as root (as the guide's systemd steps do) on a data folder a service user owns:
// whatever they write there is given back to the folder's owner, so that the service's next start can
// open every file (docs/operating.md, "Backups").
import { lchownSync, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Who should own what a command writes in `folder`: the owner of the folder (or of its nearest existing
 * parent, for a folder the command creates), when this process runs as root and that owner is another
 * user; null otherwise (the files are this user's anyway, or it could not change them).
 * @param {string} folder
 * @returns {{ uid: number, gid: number } | null}
 */
export function ownerToKeep(folder) {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
	for (let dir = path.resolve(folder); ; dir = path.dirname(dir)) {
		const stat = statSync(dir, { throwIfNoEntry: false });
		if (stat) return stat.uid === 0 ? null : { uid: stat.uid, gid: stat.gid };
		if (dir === path.dirname(dir)) return null;
	}
}

/**
 * Gives `folder` and everything in it to `owner` (what a root process created there).
 * @param {string} folder
 * @param {{ uid: number, gid: number } | null} owner
 */
export function giveBack(folder, owner) {
	if (!owner) return;
	/** @param {string} file */
	const give = (file) => {
		const stat = lstatSync(file, { throwIfNoEntry: false });
		if (!stat) return;
		if (stat.uid !== owner.uid || stat.gid !== owner.gid) lchownSync(file, owner.uid, owner.gid);
		if (stat.isDirectory()) for (const name of readdirSync(file)) give(path.join(file, name));
	};
	give(folder);
}
