// Finds many literal strings in one pass over a text. A few hundred secret forms against a
// several-megabyte CI log would otherwise be a few hundred scans of it. An automaton
// (Aho-Corasick, as a dense table) over KEY characters from the middle of every literal
// proposes where one may be; a direct comparison confirms the whole literal there. The
// middle, because the ends can be public (a PEM's armour, the base64 of "-----BEGIN"), and a
// text repeating them would make every position a candidate.
export type Range = readonly [start: number, end: number];
export type LiteralMatcher = (text: string) => Range[];

const KEY = 8;

type Candidate = { literal: string; offset: number };

/** Literals shorter than KEY are ignored. The ranges come back in no particular order and may overlap. */
export function literalMatcher(literals: Iterable<string>): LiteralMatcher {
  const keyed = [...new Set(literals)]
    .filter((literal) => literal.length >= KEY)
    .map((literal) => {
      const offset = (literal.length - KEY) >> 1;
      return { literal, offset, key: literal.slice(offset, offset + KEY) };
    });
  if (keyed.length === 0) return () => [];

  // Characters no key uses all map to 0, which always leads back to the root.
  const symbol = new Uint16Array(65536);
  let symbols = 1;
  for (const { key } of keyed)
    for (let i = 0; i < KEY; i++) {
      const code = key.charCodeAt(i);
      if (symbol[code] === 0) symbol[code] = symbols++;
    }

  const children: Array<Map<number, number>> = [new Map()];
  const candidates: Array<Candidate[] | undefined> = [undefined];
  for (const { literal, offset, key } of keyed) {
    let node = 0;
    for (let i = 0; i < KEY; i++) {
      const s = symbol[key.charCodeAt(i)] ?? 0;
      let next = children[node]?.get(s);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        candidates.push(undefined);
        children[node]?.set(s, next);
      }
      node = next;
    }
    (candidates[node] ??= []).push({ literal, offset });
  }

  // Breadth first, so a node's fallback row is complete before the node's own.
  const table = new Int32Array(children.length * symbols);
  const fallback = new Int32Array(children.length);
  const queue = [0];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] ?? 0;
    for (let s = 1; s < symbols; s++) {
      const child = children[node]?.get(s);
      const viaFallback = node === 0 ? 0 : (table[(fallback[node] ?? 0) * symbols + s] ?? 0);
      if (child === undefined) table[node * symbols + s] = viaFallback;
      else {
        table[node * symbols + s] = child;
        fallback[child] = viaFallback;
        queue.push(child);
      }
    }
  }

  return (text) => {
    const found: Range[] = [];
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      state = table[state * symbols + (symbol[text.charCodeAt(i)] ?? 0)] ?? 0;
      const here = candidates[state];
      if (!here) continue;
      for (const { literal, offset } of here) {
        const start = i - KEY + 1 - offset;
        if (start >= 0 && text.startsWith(literal, start)) found.push([start, start + literal.length]);
      }
    }
    return found;
  };
}
