/** `*` and `?` wildcards (spec 001 §5) → a SQL `LIKE` pattern (escape `\`), everything else literal. */
export function likePattern(pattern: string): string {
  return pattern
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replace(/\*/g, '%')
    .replace(/\?/g, '_');
}
