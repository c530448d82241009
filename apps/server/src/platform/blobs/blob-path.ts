const SHA256_PATTERN = /^[0-9a-f]{64}$/;

export function isSha256(value: unknown): value is string {
  return typeof value === 'string' && SHA256_PATTERN.test(value);
}

/** Refuses anything but 64 lowercase hex characters, so no path or key can be smuggled in. */
export function assertSha256(value: unknown): asserts value is string {
  if (!isSha256(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
    throw new TypeError(`invalid sha256 ${shown}: expected 64 lowercase hexadecimal characters`);
  }
}

/** `abcdef…` → `ab/cd/abcdef…`: the fan-out shared by both stores. */
export function blobRelativePath(sha256: string): string {
  assertSha256(sha256);
  return `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}

/** Validates a range and returns it with `end` clamped to the last byte of a blob of `size` bytes. */
export function checkRange(
  range: { start: number; end: number },
  size?: number,
): { start: number; end: number } {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
  if (size === undefined) return { start, end };
  if (start >= size)
    throw new RangeError(`byte range ${start}-${end} starts past the end of a ${size}-byte blob`);
  return { start, end: Math.min(end, size - 1) };
}
