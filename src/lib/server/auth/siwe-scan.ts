/**
 * Linear scanners for the variable-length rules of the reference SIWE grammar
 * (`@spruceid/siwe-parser`'s `siwe-grammar.js`, apg-js): each returns how many characters the rule
 * matches at `at`, exactly as apg's parser does (PEG: first success, greedy repetitions, no
 * backtracking into them; the grammar's own semantic callbacks for IPv4 octets and IPv6 groups
 * included), or NOMATCH. 0 is an empty match.
 *
 * Why: apg allocates on every rule call and tries up to a dozen alternatives per character, so a
 * hostile 8 KiB URI cost milliseconds (bench/README.md "Figures behind the code"). siwe-parse-budget.ts hands these rules to the scanners, which
 * look at each character a bounded number of times (at most 4, in the host of an authority: an
 * IPv4 try, then the name), and leaves the rest of the grammar (line order, titles, the address,
 * dates) to the reference parser. `siwe-scan.test.ts` checks every scanner against apg's own rule.
 *
 * `s` holds code points (apg's input array); reading past its end yields undefined, which no test
 * below accepts.
 */
export type CodePoints = ArrayLike<number>;

export const NOMATCH = -1;

const ALNUM = 1;
const REG_NAME = 2; // reg-name-char without pct-encoded
const USERINFO = 4; // userinfo, without pct-encoded
const PCHAR = 8; // pchar without pct-encoded
const QUERY = 16; // query / fragment chars without pct-encoded
const STATEMENT = 32;
const SCHEME = 64; // after the first ALPHA
const FUTURE = 128; // IPvFuture's tail

const CLASSES = new Uint8Array(128);
{
	const add = (flag: number, from: number, to = from) => {
		for (let c = from; c <= to; c++) CLASSES[c]! |= flag;
	};
	const all = REG_NAME | USERINFO | PCHAR | QUERY | FUTURE;
	for (const [from, to] of [
		[48, 57],
		[65, 90],
		[97, 122]
	] as const) {
		add(ALNUM | all | STATEMENT | SCHEME, from, to);
	}
	// sub-delims and unreserved: ! $ & ' ( ) * + , - . ; = _ ~
	for (const c of [33, 36, 59, 61, 95, 126]) add(all, c);
	add(all, 38, 46);
	add(USERINFO | PCHAR | QUERY | FUTURE, 58); // :
	add(PCHAR | QUERY, 64); // @
	add(QUERY, 47); // /
	add(QUERY, 63); // ?
	add(SCHEME, 43); // +
	add(SCHEME, 45, 46); // - .
	// statement = 1*( a-z / A-Z / 0-9 / %d32-33 / %d35-36 / %d38-59 / %d61 / %d63-64 / %d91 / %d93 / %d95 / %d126 )
	for (const [from, to] of [
		[32, 33],
		[35, 36],
		[38, 59],
		[61, 61],
		[63, 64],
		[91, 91],
		[93, 93],
		[95, 95],
		[126, 126]
	] as const) {
		add(STATEMENT, from, to);
	}
}

const is = (c: number | undefined, flag: number): boolean => c !== undefined && c < 128 && (CLASSES[c]! & flag) !== 0;
const isAlpha = (c: number | undefined): boolean => c !== undefined && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122));
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 48 && c <= 57;
const isHex = (c: number | undefined): boolean =>
	c !== undefined && ((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102));

/** pct-encoded = "%" HEXDIG HEXDIG */
const isPct = (s: CodePoints, i: number): boolean => s[i] === 37 && isHex(s[i + 1]) && isHex(s[i + 2]);

/** The end of a run of characters of `flag` (and pct-encoded triples when `pct`) from `i`. */
function run(s: CodePoints, i: number, flag: number, pct: boolean): number {
	for (;;) {
		if (is(s[i], flag)) i++;
		else if (pct && isPct(s, i)) i += 3;
		else return i;
	}
}

function digits(s: CodePoints, i: number): number {
	while (isDigit(s[i])) i++;
	return i;
}

/** scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
export function scheme(s: CodePoints, at: number): number {
	if (!isAlpha(s[at])) return NOMATCH;
	let i = at + 1;
	while (is(s[i], SCHEME)) i++;
	return i - at;
}

/** oscheme = [ ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) "://" ] */
export function oscheme(s: CodePoints, at: number): number {
	const length = scheme(s, at);
	if (length < 0) return 0;
	const i = at + length;
	return s[i] === 58 && s[i + 1] === 47 && s[i + 2] === 47 ? length + 3 : 0;
}

/** dec-octet = *3dec-digit, refused above 255 by the grammar's callback. */
function decOctet(s: CodePoints, at: number): number {
	let i = at;
	let value = 0;
	while (i - at < 3 && isDigit(s[i])) value = value * 10 + s[i++]! - 48;
	return value > 255 ? NOMATCH : i - at;
}

/** IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet */
export function ipv4(s: CodePoints, at: number): number {
	let i = at;
	for (let octet = 0; octet < 4; octet++) {
		if (octet > 0) {
			if (s[i] !== 46) return NOMATCH;
			i++;
		}
		const length = decOctet(s, i);
		if (length < 0) return NOMATCH;
		i += length;
	}
	return i - at;
}

/** 1*4HEXDIG */
function hex4(s: CodePoints, at: number): number {
	let i = at;
	while (i - at < 4 && isHex(s[i])) i++;
	return i === at ? NOMATCH : i - at;
}

/** h16n = 1*4HEXDIG !"." ; with a leading ":" (h16cn) when `colon`. */
function h16n(s: CodePoints, at: number, colon: boolean): number {
	const start = colon ? at + 1 : at;
	if (colon && s[at] !== 58) return NOMATCH;
	const length = hex4(s, start);
	if (length < 0 || s[start + length] === 46) return NOMATCH;
	return start + length - at;
}

/** h16 = 1*4HEXDIG ; with a leading ":" (h16c) when `colon`. */
function h16(s: CodePoints, at: number, colon: boolean): number {
	if (colon && s[at] !== 58) return NOMATCH;
	const length = hex4(s, colon ? at + 1 : at);
	return length < 0 ? NOMATCH : length + (colon ? 1 : 0);
}

/** (h16n *h16cn) [ ":" IPv4address ], with how many groups and whether an IPv4 tail matched. */
function groupsThenIpv4(s: CodePoints, at: number): { length: number; groups: number; v4: boolean } | null {
	let i = at;
	let length = h16n(s, i, false);
	if (length < 0) return null;
	let groups = 1;
	i += length;
	while ((length = h16n(s, i, true)) >= 0) {
		groups++;
		i += length;
	}
	let v4 = false;
	if (s[i] === 58 && (length = ipv4(s, i + 1)) >= 0) {
		v4 = true;
		i += 1 + length;
	}
	return { length: i - at, groups, v4 };
}

/**
 * IPv6address = nodcolon / dcolon, as the grammar redefines it, with its callbacks' counts:
 * nodcolon has exactly 8 groups (6 before an IPv4 tail); dcolon fewer than 8 (6).
 */
export function ipv6(s: CodePoints, at: number): number {
	// nodcolon = (h16n *h16cn) [%d58 IPv4address]
	const whole = groupsThenIpv4(s, at);
	if (whole && whole.groups === (whole.v4 ? 6 : 8)) return whole.length;
	// dcolon = [h16 *h16c] "::" (((h16n *h16cn) [%d58 IPv4address]) / [IPv4address])
	let i = at;
	let groups = 0;
	let length = h16(s, i, false);
	if (length >= 0) {
		groups++;
		i += length;
		while ((length = h16(s, i, true)) >= 0) {
			groups++;
			i += length;
		}
	}
	if (s[i] !== 58 || s[i + 1] !== 58) return NOMATCH;
	i += 2;
	let v4 = false;
	const tail = groupsThenIpv4(s, i);
	if (tail) {
		groups += tail.groups;
		v4 = tail.v4;
		i += tail.length;
	} else if ((length = ipv4(s, i)) >= 0) {
		v4 = true;
		i += length;
	}
	return groups < (v4 ? 6 : 8) ? i - at : NOMATCH;
}

/** IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) ("v" either case) */
function ipvFuture(s: CodePoints, at: number): number {
	if (s[at] !== 118 && s[at] !== 86) return NOMATCH;
	let i = at + 1;
	if (!isHex(s[i])) return NOMATCH;
	while (isHex(s[i])) i++;
	if (s[i] !== 46 || !is(s[i + 1], FUTURE)) return NOMATCH;
	i = run(s, i + 1, FUTURE, false);
	return i - at;
}

/** IP-literal = "[" ( IPv6address / IPvFuture ) "]" */
function ipLiteral(s: CodePoints, at: number): number {
	if (s[at] !== 91) return NOMATCH;
	let inner = ipv6(s, at + 1);
	if (inner < 0) inner = ipvFuture(s, at + 1);
	if (inner < 0 || s[at + 1 + inner] !== 93) return NOMATCH;
	return inner + 2;
}

/** host = IP-literal / (IPv4address !reg-name-char) / reg-name; never fails (reg-name may be empty). */
function host(s: CodePoints, at: number): number {
	const literal = ipLiteral(s, at);
	if (literal >= 0) return literal;
	const v4 = ipv4(s, at);
	if (v4 >= 0 && !is(s[at + v4], REG_NAME) && !isPct(s, at + v4)) return v4;
	return run(s, at, REG_NAME, true) - at;
}

/** authority = [ userinfo "@" ] host [ ":" port ]; the grammar's `domain` too. Never fails. */
export function authority(s: CodePoints, at: number): number {
	let i = at;
	const userinfoEnd = run(s, i, USERINFO, true);
	if (s[userinfoEnd] === 64) i = userinfoEnd + 1;
	i += host(s, i);
	if (s[i] === 58) i = digits(s, i + 1);
	return i - at;
}

/** path-abempty = *( "/" segment ) */
function pathAbempty(s: CodePoints, i: number): number {
	while (s[i] === 47) i = run(s, i + 1, PCHAR, true);
	return i;
}

/** URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]; the resources' URI-r too. */
export function uri(s: CodePoints, at: number): number {
	const schemeLength = scheme(s, at);
	if (schemeLength < 0) return NOMATCH;
	let i = at + schemeLength;
	if (s[i] !== 58) return NOMATCH;
	i++;
	if (s[i] === 47 && s[i + 1] === 47) {
		// "//" authority path-abempty
		i = pathAbempty(s, i + 2 + authority(s, i + 2));
	} else if (s[i] === 47) {
		// path-absolute = "/" [ segment-nz *( "/" segment ) ]
		const segmentEnd = run(s, i + 1, PCHAR, true);
		i = segmentEnd > i + 1 ? pathAbempty(s, segmentEnd) : i + 1;
	} else {
		// path-rootless = segment-nz *( "/" segment ), or path-empty
		const segmentEnd = run(s, i, PCHAR, true);
		if (segmentEnd > i) i = pathAbempty(s, segmentEnd);
	}
	if (s[i] === 63) i = run(s, i + 1, QUERY, true);
	if (s[i] === 35) i = run(s, i + 1, QUERY, true);
	return i - at;
}

/** statement = 1*( printable characters but `"`, `%`, `<`, `>`, `\`, `^`, backtick, `{`, `|`, `}` ) */
export function statement(s: CodePoints, at: number): number {
	const end = run(s, at, STATEMENT, false);
	return end === at ? NOMATCH : end - at;
}

/** nonce = 8*( ALPHA / DIGIT ) */
export function nonce(s: CodePoints, at: number): number {
	const end = run(s, at, ALNUM, false);
	return end - at < 8 ? NOMATCH : end - at;
}

/** request-id = *pchar */
export function requestId(s: CodePoints, at: number): number {
	return run(s, at, PCHAR, true) - at;
}

/** chain-id = 1*DIGIT */
export function chainId(s: CodePoints, at: number): number {
	const end = digits(s, at);
	return end === at ? NOMATCH : end - at;
}

/** time-secfrac = "." 1*DIGIT */
export function timeSecfrac(s: CodePoints, at: number): number {
	if (s[at] !== 46 || !isDigit(s[at + 1])) return NOMATCH;
	return digits(s, at + 1) - at;
}

/**
 * resources = *( LF "- " URI ): the offset and length of each resource's URI, and the length of the
 * whole. Like the grammar's repetition, it stops before the first line that is not a resource.
 */
export function resources(s: CodePoints, at: number): { length: number; uris: [number, number][] } {
	const uris: [number, number][] = [];
	let i = at;
	for (;;) {
		if (s[i] !== 10 || s[i + 1] !== 45 || s[i + 2] !== 32) break;
		const length = uri(s, i + 3);
		if (length < 0) break;
		uris.push([i + 3, length]);
		i += 3 + length;
	}
	return { length: i - at, uris };
}
