// Small vector helpers shared by the embedders, the vector index and the similarity judge.

import { invalidArgument } from "../errors.ts";

/**
 * Dot product of `dim` components: `a[aOffset..aOffset+dim)` · `b[0..dim)`.
 * Four partial sums (faster, and the one summation order every caller shares, so equal inputs give
 * bit-equal scores whether they come from {@link dot} or from the vector index).
 */
export function dotAt(a: Float32Array, aOffset: number, b: Float32Array, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  const end4 = dim - (dim % 4);
  for (; i < end4; i += 4) {
    s0 += (a[aOffset + i] as number) * (b[i] as number);
    s1 += (a[aOffset + i + 1] as number) * (b[i + 1] as number);
    s2 += (a[aOffset + i + 2] as number) * (b[i + 2] as number);
    s3 += (a[aOffset + i + 3] as number) * (b[i + 3] as number);
  }
  for (; i < dim; i++) s0 += (a[aOffset + i] as number) * (b[i] as number);
  return s0 + s1 + (s2 + s3);
}

/**
 * Dot product of two vectors of the same length.
 *
 * @example
 * ```ts
 * dot(new Float32Array([1, 2]), new Float32Array([3, 4])); // 11
 * ```
 */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw invalidArgument(`dot: vectors differ in length (${a.length} vs ${b.length}); pass vectors of one embedder.`);
  }
  return dotAt(a, 0, b, a.length);
}

/**
 * Cosine similarity in [-1, 1]; 0 when either vector is all zeros.
 *
 * @example
 * ```ts
 * cosine(new Float32Array([1, 0]), new Float32Array([2, 0])); // 1
 * ```
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  const normProduct = Math.sqrt(dot(a, a) * dot(b, b));
  return normProduct === 0 ? 0 : dot(a, b) / normProduct;
}

/**
 * Scales `v` to unit length in place and returns it; an all-zero vector is left as it is.
 *
 * @example
 * ```ts
 * normalize(new Float32Array([3, 4])); // Float32Array [0.6, 0.8]
 * ```
 */
export function normalize(v: Float32Array): Float32Array {
  const norm = Math.sqrt(dot(v, v));
  if (norm === 0) return v;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/**
 * Why `v` is not a usable vector of length `dim` (not a Float32Array, wrong length, NaN or ±Infinity),
 * or null when it is.
 *
 * @example
 * ```ts
 * checkVector(new Float32Array(3), 4); // "has length 3, expected 4"
 * ```
 */
export function checkVector(v: unknown, dim: number): string | null {
  if (!(v instanceof Float32Array)) {
    return `is ${describeValue(v)}, expected a Float32Array`;
  }
  if (v.length !== dim) return `has length ${v.length}, expected ${dim}`;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) return `has a non-finite value (${v[i]}) at index ${i}`;
  }
  return null;
}

function describeValue(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return `a ${v.constructor?.name ?? "object"}`;
  return `a ${typeof v}`;
}

/**
 * `dot(v, v)` to the bit, for a vector of `dim` components given by `count` stored values from `valuesAt` in
 * `values`: the components `components[componentsAt..]` (ascending; null: components 0, 1, 2… in order, a dense
 * vector), the others zero. Summed as {@link dotAt} sums it (four partial sums, component c into sum c mod 4 and the
 * tail past the last multiple of 4 into the first, each in ascending order); the zero components that leaves out
 * add +0, which changes no sum.
 */
export function storedSelfDot(
  components: Uint8Array | Uint16Array | null,
  componentsAt: number,
  values: Float32Array,
  valuesAt: number,
  count: number,
  dim: number,
): number {
  const end4 = dim - (dim % 4);
  // The partial sums in an array indexed by lane: a sparse vector's lanes come at random, and a branch per lane
  // was mispredicted about half the time. Two loops: a dense vector's component is its position.
  const sums = selfDotSums.fill(0);
  if (components === null) {
    for (let c = 0; c < count; c++) {
      const x = values[valuesAt + c] as number;
      const lane = c < end4 ? c & 3 : 0;
      sums[lane] = (sums[lane] as number) + x * x;
    }
  } else {
    for (let k = 0; k < count; k++) {
      const c = components[componentsAt + k] as number;
      const x = values[valuesAt + k] as number;
      const lane = c < end4 ? c & 3 : 0;
      sums[lane] = (sums[lane] as number) + x * x;
    }
  }
  return (sums[0] as number) + (sums[1] as number) + ((sums[2] as number) + (sums[3] as number));
}

/** {@link storedSelfDot}'s partial sums, shared (it never runs inside another call of itself). */
const selfDotSums = new Float64Array(4);

/**
 * {@link storedSelfDot} of a sparse vector's pairs, or −1 when they are not well formed: components strictly
 * ascending below `dim`, values finite and not ±0 (a sparse layout keeps no −0).
 */
export function sparseSelfDot(
  components: Uint8Array | Uint16Array,
  componentsAt: number,
  values: Float32Array,
  valuesAt: number,
  count: number,
  dim: number,
): number {
  let previous = -1;
  for (let k = 0; k < count; k++) {
    const c = components[componentsAt + k] as number;
    const x = values[valuesAt + k] as number;
    // Zero, NaN and ±Infinity (x − x is NaN for the last two), or a component out of order.
    if (x === 0 || x - x !== 0 || !(c > previous && c < dim)) return -1;
    previous = c;
  }
  return storedSelfDot(components, componentsAt, values, valuesAt, count, dim);
}

/**
 * Whether `count` pairs are a well-formed sparse vector of `dim` components ({@link sparseSelfDot}) that
 * {@link normalize} would leave exactly as it is: divided by its norm (the one `normalize` divides by, to
 * the bit), every value rounds (as float32) to itself. False for a zero norm.
 */
export function unitAsStored(
  components: Uint8Array | Uint16Array,
  componentsAt: number,
  values: Float32Array,
  valuesAt: number,
  count: number,
  dim: number,
): boolean {
  const squares = sparseSelfDot(components, componentsAt, values, valuesAt, count, dim);
  if (!(squares > 0)) return false;
  const norm = Math.sqrt(squares);
  for (let k = 0; k < count; k++) {
    const x = values[valuesAt + k] as number;
    if (Math.fround(x / norm) !== x) return false;
  }
  return true;
}

/** True when no component is NaN or ±Infinity. */
export function allFinite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) {
    // x - x is 0 for every finite x and NaN for NaN and ±Infinity: one subtraction, no call.
    const x = vector[i]!;
    if (x - x !== 0) return false;
  }
  return true;
}
