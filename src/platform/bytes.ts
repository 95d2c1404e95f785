// Copying a range of one byte array into another without a view of the source: a view (subarray) of a
// socket read makes JSC copy the whole read into an ArrayBuffer of its own first, and a loop costs a
// few instructions per byte; Buffer's copy takes the range as it is.
const bufferCopy = Buffer.prototype.copy as (
  this: Uint8Array,
  target: Uint8Array,
  targetStart: number,
  sourceStart: number,
  sourceEnd: number,
) => number;

/** Copies source[from, to) into target at `at`; returns the number of bytes copied. */
export const copyRange = (source: Uint8Array, from: number, to: number, target: Uint8Array, at: number): number =>
  bufferCopy.call(source, target, at, from, to);
