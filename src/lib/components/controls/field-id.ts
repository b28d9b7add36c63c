/** A field of a form, as its error summary (FormAlert) links to it: its name in the form, its element's id, its label. */
export interface SummaryField {
	name: string;
	id: string;
	label: string;
	/**
	 * In a numbered list, the item ("Question 2") and the field's own name ("Key"), `label` being both. A
	 * message that names the field itself ("Key must start with a-z…") is then said once, after the item.
	 */
	item?: string;
	field?: string;
}

/**
 * The element id of a form's field named `name` (`questions.0.label` → `field-questions-0-label`), where a
 * form's fields are many and numbered (the form builder's questions, criteria and rules): the field takes
 * it and the error summary links to it.
 */
export const numberedFieldId = (name: string) => `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/**
 * The refused fields of a numbered list (`<list>.<i>.<field>`: "Question 2: Key"), each linked by `numberedFieldId`;
 * `labels` names the fields that have an element of that id (given the item's index, for a name that depends on
 * the item, as the label its field shows does); `deeper` names a field further down
 * (`<list>.<i>.translations.es.label`: its parts after the index), or leaves it out with undefined.
 */
export function numberedFields(
	errors: Readonly<Record<string, string>>,
	list: string,
	item: (n: number) => string,
	labels: Readonly<Record<string, (index: number) => string>>,
	deeper: (parts: string[]) => string | undefined = () => undefined
): SummaryField[] {
	return Object.keys(errors).flatMap((name) => {
		const [head, index, field, ...rest] = name.split('.');
		if (head !== list || !/^\d+$/.test(index ?? '') || !field) return [];
		const at = Number(index);
		const label = rest.length
			? deeper([field, ...rest])
			: Object.hasOwn(labels, field)
				? labels[field]!(at)
				: undefined;
		if (label === undefined) return [];
		const itemName = item(at + 1);
		return [{ name, id: numberedFieldId(name), label: `${itemName}: ${label}`, item: itemName, field: label }];
	});
}

/**
 * How an error summary says one refused field: the message alone after the item when it already names the
 * field ("Question 1: Label (Español) must be…"), else the field's label and then the message
 * ("Question 1: Key: Send text only."). `link` is the part that links to the field, `rest` what follows it.
 */
export function summaryEntry(f: SummaryField, message: string): { link: string; rest: string } {
	if (
		f.item !== undefined &&
		f.field !== undefined &&
		message.toLocaleLowerCase().includes(f.field.toLocaleLowerCase())
	)
		return { link: `${f.item}: ${message}`, rest: '' };
	return { link: f.label, rest: `: ${message}` };
}
