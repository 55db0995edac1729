import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { base64ToBytes, base64ToVector, bytesToBase64, encodeLoop, vectorToBase64 } from "./base64.ts";

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
    const bad = ["a", "abc", "ab=c", "a*cd", "abcd\u00e9fgh", "ab c", "====", "Zg=a", "Zm9-", "Zm9_", "Zm 9", "Zm9v\nZg==", "Z===", "Zm=v", "Zm9v====", "Zg==Zg=="];
    for (const text of bad) expect(base64ToBytes(text), text).toBeNull();
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

  it("round-trips float32 vectors bit for bit", () => {
    fc.assert(
      fc.property(fc.float32Array({ maxLength: 64 }), (values) => {
        const back = base64ToVector(vectorToBase64(values));
        expect(back).not.toBeNull();
        expect(new Uint8Array(back!.buffer, back!.byteOffset, back!.byteLength)).toEqual(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      }),
    );
    expect(base64ToVector("Zg==")).toBeNull(); // one byte is not a float32
  });
});
