// The transitions table of docs/transitions.md, written out independently of src/lib/applications/transitions.ts
// so that a wrong table in the code cannot make its own tests pass.
export type Needs = { reason?: true; txHash?: true };
export type Row = [field: 'review' | 'allowlist' | 'distribution', from: string, to: string, needs: Needs];

export const PERMITTED: Row[] = [
	['review', 'pending', 'needs_info', { reason: true }],
	['review', 'pending', 'approved', {}],
	['review', 'pending', 'rejected', { reason: true }],
	['review', 'needs_info', 'approved', {}],
	['review', 'needs_info', 'rejected', { reason: true }],
	['allowlist', 'pending', 'added', { txHash: true }],
	['allowlist', 'pending', 'failed', { reason: true }],
	['allowlist', 'failed', 'added', { txHash: true }],
	['distribution', 'pending', 'sent', { txHash: true }],
	['distribution', 'pending', 'failed', { reason: true }],
	['distribution', 'failed', 'sent', { txHash: true }]
];
export const TERMINAL: Record<string, string[]> = {
	review: ['approved', 'rejected'],
	allowlist: ['added'],
	distribution: ['sent']
};
export const STATES: Record<string, string[]> = {
	review: ['pending', 'needs_info', 'approved', 'rejected'],
	allowlist: ['pending', 'added', 'failed'],
	distribution: ['pending', 'sent', 'failed']
};
