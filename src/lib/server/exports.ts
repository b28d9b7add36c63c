import { and, asc, eq } from 'drizzle-orm';
import type { Database } from './db/client';
import { applications, type Application } from './db/schema';

/** Approved applications whose allowlist step is still pending, oldest first: the manual on-chain list. */
export async function pendingAllowlist(db: Database): Promise<Application[]> {
	return db
		.select()
		.from(applications)
		.where(and(eq(applications.review, 'approved'), eq(applications.allowlist, 'pending')))
		.orderBy(asc(applications.createdAt), asc(applications.id));
}

/** RFC 4180 CSV of `pendingAllowlist`; cells that a spreadsheet would run as a formula are defused. */
export function allowlistCsv(rows: Application[]): string {
	const cell = (value: string) => {
		const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
		return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
	};
	const lines = [['address', 'display_name', 'contact', 'application_id', 'applied_at'].join(',')];
	for (const r of rows) {
		lines.push([r.applicantAddress, r.displayName, r.contact, r.id, r.createdAt.toISOString()].map(cell).join(','));
	}
	return lines.join('\r\n') + '\r\n';
}
