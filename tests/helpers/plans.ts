// PostgreSQL's EXPLAIN (ANALYZE, FORMAT JSON) plans, as the plan tests read them.

/** A plan node: what it reads, how many rows it returned per loop, and its children. */
export interface Plan {
	'Node Type': string;
	'Relation Name'?: string;
	'Index Name'?: string;
	'Actual Rows': number;
	'Actual Loops': number;
	Plans?: Plan[];
}

/** A plan's every node, itself first. */
export const nodes = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
