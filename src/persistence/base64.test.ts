import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { seededRandom } from "../../test/helpers/seeded-random.ts";
import {
  base64BytesToBytes,
  base64ToBytes,
  base64ToVector,
  bytesToBase64,
  encodeLoop,
  sparseBase64ToVector,
  strictBase64ToBytes,
  vectorToBase64,
  vectorToSparseBase64,
} from "./base64.ts";

describe("base64", () => {
  it("matches the standard encoding on known values", () => {
    const enc = (s: string): string => bytesToBase64(new TextEncoder().encode(s));
    expect(enc("")).toBe("");
    expect(enc("f")).toBe("Zg==");
    expect(enc("fo")).toBe("Zm8=");
    expect(enc("foo")).toBe("Zm9v");
    expect(enc("foobar")).toBe("Zm9vYmFy");
    expect(bytesToBase64(Uint8Array.of(255, 254, 253, 0, 1))).toBe("//79AAE=");
  });

  it("round-trips any bytes and agrees with btoa", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = bytesToBase64(bytes);
        expect(text).toBe(btoa(String.fromCharCode(...bytes)));
        expect(encodeLoop(bytes)).toBe(text);
        // A view into a larger buffer encodes only its own bytes.
        const padded = new Uint8Array(bytes.length + 6);
        padded.set(bytes, 3);
        expect(bytesToBase64(padded.subarray(3, 3 + bytes.length))).toBe(text);
        expect(base64ToBytes(text)).toEqual(bytes);
      }),
    );
  });

  it("rejects text that is not base64", () => {
    const bad = [
      "a",
      "abc",
      "ab=c",
      "a*cd",
      "abcd\u00e9fgh",
      "ab c",
      "====",
      "Zg=a",
      "Zm9-",
      "Zm9_",
      "Zm 9",
      "Zm9v\nZg==",
      "Z===",
      "Zm=v",
      "Zm9v====",
      "Zg==Zg==",
    ];
    for (const text of bad) expect(base64ToBytes(text), text).toBeNull();
  });

  it("decodes base64 held as bytes exactly as the strict loop decodes the text, valid or not", () => {
    // Text near base64: the alphabet, padding, base64url, space, a newline, a quote, a backslash, Latin-1 and other non-ASCII characters.
    const chars = fc.constantFrom(
      ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
      "=",
      "=",
      "-",
      "_",
      " ",
      "\n",
      '"',
      "\\",
      "\u00e9",
      "\u00ff",
      "\u20ac",
    );
    const nearBase64 = fc.oneof(
      fc.uint8Array({ maxLength: 120 }).map(bytesToBase64),
      // Valid base64 with one character changed.
      fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 120 }), fc.nat(), chars).map(([bytes, at, c]) => {
        const text = bytesToBase64(bytes);
        const i = at % text.length;
        return text.slice(0, i) + c + text.slice(i + 1);
      }),
      fc.array(chars, { maxLength: 40 }).map((cs) => cs.join("")),
    );
    fc.assert(
      fc.property(nearBase64, fc.nat({ max: 5 }), fc.nat({ max: 5 }), (text, before, after) => {
        const encoded = new TextEncoder().encode(text);
        // In the middle of a larger buffer, at any alignment (the decoder reads four bytes at a time).
        const held = new Uint8Array(before + encoded.length + after).fill(0x41);
        held.set(encoded, before);
        const strict = strictBase64ToBytes(text);
        const fromBytes = base64BytesToBytes(held, before, before + encoded.length);
        expect(fromBytes, text).toEqual(strict);
        // Where the strict loop accepts, the decoder the runtime offers gives the same bytes.
        if (strict !== null) expect(base64ToBytes(text)).toEqual(strict);
        if (fromBytes !== null) expect(fromBytes.byteOffset).toBe(0);
      }),
      { numRuns: 2000 },
    );
    const at = (text: string): Uint8Array | null => base64BytesToBytes(new TextEncoder().encode(text));
    for (const text of ["a", "abc", "ab=c", "a*cd", "abcd\u00e9fgh", "====", "Zg=a", "Zm9-", "Zm9_", "Zm 9", "Z===", "Zm=v", "Zm9v====", "Zg==Zg=="]) {
      expect(at(text), text).toBeNull();
    }
    expect(at("")).toEqual(new Uint8Array(0));
    expect(at("Zm9vYg==")).toEqual(new TextEncoder().encode("foob"));
    // Bits past the last byte are ignored, as every decoder here ignores them.
    expect(at("QR==")).toEqual(Uint8Array.of(0x41));
    expect(base64ToBytes("QR==")).toEqual(Uint8Array.of(0x41));
  });

  it("decodes to bytes of its own, the same whichever decoder the runtime offers", () => {
    const text = bytesToBase64(Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) & 255));
    const a = base64ToBytes(text)!;
    const b = base64ToBytes(text)!;
    expect(a).toEqual(b);
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteOffset).toBe(0);
    expect(a.buffer.byteLength).toBe(1024);
  });

  it("round-trips finite float32 vectors bit for bit, and refuses any holding NaN or Infinity", () => {
    fc.assert(
      fc.property(fc.float32Array({ maxLength: 64 }), (values) => {
        const back = base64ToVector(vectorToBase64(values));
        if (values.some((x) => !Number.isFinite(x))) {
          expect(back).toBeNull();
          return;
        }
        expect(back).not.toBeNull();
        expect(new Uint8Array(back!.buffer, back!.byteOffset, back!.byteLength)).toEqual(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      }),
    );
    expect(base64ToVector("Zg==")).toBeNull(); // one byte is not a float32
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(base64ToVector(vectorToBase64(Float32Array.of(0.5, 1, x)))).toBeNull();
      expect(base64ToVector(vectorToBase64(Float32Array.of(x)))).toBeNull();
    }
  });

  it("round-trips mostly-zero vectors bit for bit through the sparse form, -0 included", () => {
    // Vectors with a few set components (finite values, -0 among them), of any length.
    const sparseVector = fc
      .record({
        dim: fc.integer({ min: 0, max: 300 }),
        set: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.float({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0))), { maxLength: 40 }),
      })
      .map(({ dim, set }) => {
        const v = new Float32Array(dim);
        if (dim > 0) for (const [i, x] of set) v[i % dim] = x;
        return v;
      });
    fc.assert(
      fc.property(sparseVector, (values) => {
        const text = vectorToSparseBase64(values);
        let setCount = 0;
        for (const x of values) if (!Object.is(x, 0)) setCount++;
        // Sparse exactly when it saves a third of the dense bytes.
        expect(text !== null).toBe(6 * setCount <= (2 / 3) * 4 * values.length);
        if (text === null) return;
        const back = sparseBase64ToVector(text, values.length);
        expect(back).not.toBeNull();
        expect(new Uint8Array(back!.buffer, back!.byteOffset, back!.byteLength)).toEqual(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      }),
      { numRuns: 300 },
    );
    expect(vectorToSparseBase64(Float32Array.from([1, 2, 3, 0]))).toBeNull(); // dense: no saving
    expect(sparseBase64ToVector(vectorToSparseBase64(new Float32Array(10))!, 10)).toEqual(new Float32Array(10));
  });

  it("refuses sparse text that this encoder cannot have written", () => {
    const bytesOf = (values: number[], indices: number[]): string => {
      const bytes = new Uint8Array(6 * values.length);
      const view = new DataView(bytes.buffer);
      values.forEach((x, k) => view.setFloat32(4 * k, x, true));
      indices.forEach((i, k) => view.setUint16(4 * values.length + 2 * k, i, true));
      return bytesToBase64(bytes);
    };
    expect(sparseBase64ToVector(bytesOf([0.5, 0.25], [1, 3]), 4)).toEqual(Float32Array.from([0, 0.5, 0, 0.25]));
    expect(sparseBase64ToVector(bytesOf([0.5, 0.25], [3, 1]), 4)).toBeNull(); // indices out of order
    expect(sparseBase64ToVector(bytesOf([0.5, 0.25], [1, 1]), 4)).toBeNull(); // an index twice
    expect(sparseBase64ToVector(bytesOf([0.5], [4]), 4)).toBeNull(); // past the end
    expect(sparseBase64ToVector(bytesOf([0], [1]), 4)).toBeNull(); // +0 is never written
    expect(sparseBase64ToVector(bytesOf([Number.NaN], [1]), 4)).toBeNull();
    expect(sparseBase64ToVector(bytesOf([Number.POSITIVE_INFINITY], [1]), 4)).toBeNull();
    expect(sparseBase64ToVector("Zm9vYg==", 4)).toBeNull(); // 4 bytes: not whole components
    expect(sparseBase64ToVector("not base64!", 4)).toBeNull();
    expect(sparseBase64ToVector(bytesOf([0.5], [1]), -1)).toBeNull();
    expect(sparseBase64ToVector(bytesOf([0.5], [1]), 1.5)).toBeNull();
  });

  it("vectors decoded one after the other never share bytes, whatever their lengths, and bad text still fails", () => {
    // In Node, vectors are decoded into ranges of shared slabs: every kept vector must still hold its own values.
    const kept: Array<[Float32Array, Float32Array]> = [];
    for (let i = 0; i < 3000; i++) {
      const dim = 1 + ((i * 37) % 1100);
      const source = Float32Array.from({ length: dim }, (_, k) => i + k / 8);
      kept.push([source, base64ToVector(vectorToBase64(source))!]);
    }
    // Sparse vectors (snapshots, journals) are filled into the same slabs, starting from zeros.
    for (let i = 0; i < 3000; i++) {
      const dim = 1 + ((i * 53) % 1100);
      const source = new Float32Array(dim);
      for (let k = i % 7; k < dim; k += 9) source[k] = i - k / 4;
      const text = vectorToSparseBase64(source);
      kept.push([source, text === null ? base64ToVector(vectorToBase64(source))! : sparseBase64ToVector(text, dim)!]);
    }
    for (const [source, decoded] of kept) expect(decoded).toEqual(source);
    const text = vectorToBase64(Float32Array.of(1, 2, 3));
    for (const bad of [
      text.replace("A", "-"),
      text.replace("A", "é"),
      text.slice(0, 4) + " " + text.slice(5),
      text.replace("=", "A").slice(1) + "=",
      "====" + text.slice(4),
    ]) {
      expect(base64ToVector(bad), bad).toBeNull();
    }
  });
});

describe("sparse vectors decoded through the shared scratch bytes", () => {
  it("each decoded vector keeps its own values however many follow, of any size", () => {
    const random = seededRandom(17);
    const kept: Array<[Float32Array, Float32Array]> = [];
    for (let n = 0; n < 400; n++) {
      const dim = 1 + Math.floor(random() * (n % 50 === 0 ? 5000 : 300));
      const v = new Float32Array(dim);
      for (let k = 0; k < dim / 8; k++) v[Math.floor(random() * dim)] = random() - 0.5;
      const text = vectorToSparseBase64(v);
      if (text === null) continue;
      kept.push([v, sparseBase64ToVector(text, dim)!]);
    }
    expect(kept.length).toBeGreaterThan(300);
    for (const [v, back] of kept) expect(back).toEqual(v);
  });

  it("text the lenient native decoder would accept is still refused", () => {
    const v = new Float32Array(64);
    v[3] = 0.5;
    v[40] = -2;
    const text = vectorToSparseBase64(v)!;
    expect(sparseBase64ToVector(text, 64)).toEqual(v);
    const at = 4;
    for (const bad of [" ", "-", "_", "=", "*", "é"]) {
      const damaged = text.slice(0, at) + bad + text.slice(at + 1);
      expect(damaged.length).toBe(text.length);
      expect(sparseBase64ToVector(damaged, 64)).toBeNull();
    }
    expect(sparseBase64ToVector(`${text.slice(0, -4)}`, 64)).toBeNull(); // a component cut short
  });
});

describe("a refused vector leaves nothing behind", () => {
  it("a sparse vector decoded after a dense text that failed to decode holds only its own values (fails on 8b987d0)", () => {
    const good = vectorToBase64(Float32Array.of(-4, 1, 2, 3, 4, 5, 6, 7));
    const bad = `${good.slice(0, 20)}*${good.slice(21)}`;
    expect(base64ToVector(bad)).toBeNull();
    const v = new Float32Array(64);
    v[1] = 0.5;
    // On 8b987d0 the failed decode's bytes stayed in the slab range the sparse decoder takes as zeros: [-4, 0.5, 2, 5.9e-39, …].
    expect(sparseBase64ToVector(vectorToSparseBase64(v)!, 64)).toEqual(v);
  });
});
