// How the model sees a line of code with its number: the number, unpadded, then "|", then
// the line's text exactly ("566|    return x"). One format wherever code is shown numbered
// (the code context, a JavaScript test's source, an edit's closest region, a review's
// excerpt); a model that copies the numbers into a search block has them taken off
// (src/engine/lpw/unnumbered-edits.ts).
export function numberedLine(n: number, text: string): string {
  return `${n}|${text}`;
}

/** The marker for lines `from`..`to` left out between numbered lines. */
export function gapMarker(from: number, to: number): string {
  return `⋮ lines ${from}-${to} not shown`;
}
