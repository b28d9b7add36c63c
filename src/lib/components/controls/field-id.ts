/** A field of a form, as its error summary (FormAlert) links to it: its name in the form, its element's id, its label. */
export interface SummaryField {
	name: string;
	id: string;
	label: string;
}

/**
 * The element id of a form's field named `name` (`questions.0.label` → `field-questions-0-label`), where a
 * form's fields are many and numbered (the form builder's questions, criteria and rules): the field takes
 * it and the error summary links to it.
 */
export const numberedFieldId = (name: string) => `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/**
 * The refused fields of a numbered list (`<list>.<i>.<field>`: "Question 2: Key"), each linked by `numberedFieldId`;
 * `labels` names the fields that have an element of that id; `deeper` names a field further down
 * (`<list>.<i>.translations.es.label`: its parts after the index), or leaves it out with undefined.
 */
export function numberedFields(
	errors: Readonly<Record<string, string>>,
	list: string,
	item: (n: number) => string,
	labels: Readonly<Record<string, () => string>>,
	deeper: (parts: string[]) => string | undefined = () => undefined
): SummaryField[] {
	return Object.keys(errors).flatMap((name) => {
		const [head, index, field, ...rest] = name.split('.');
		if (head !== list || !/^\d+$/.test(index ?? '') || !field) return [];
		const label = rest.length ? deeper([field, ...rest]) : Object.hasOwn(labels, field) ? labels[field]!() : undefined;
		if (label === undefined) return [];
		return [{ name, id: numberedFieldId(name), label: `${item(Number(index) + 1)}: ${label}` }];
	});
}
