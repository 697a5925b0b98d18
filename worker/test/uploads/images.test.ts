import { describe, expect, it } from "vitest";
import { imageDimensions } from "../../lib/images";

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((ch) => ch.charCodeAt(0)) : p)));
const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const be16 = (n: number) => [(n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >>> 8) & 255];

describe("imageDimensions", () => {
  it("reads a PNG's IHDR", () => {
    const png = bytes(
      [0x89],
      "PNG",
      [0x0d, 0x0a, 0x1a, 0x0a],
      be32(13),
      "IHDR",
      be32(1200),
      be32(630),
      [8, 6, 0, 0, 0],
    );
    expect(imageDimensions(png)).toEqual({ width: 1200, height: 630 });
  });

  it("reads a GIF's screen descriptor", () => {
    expect(imageDimensions(bytes("GIF89a", le16(320), le16(200), [0, 0, 0]))).toEqual({ width: 320, height: 200 });
  });

  it("reads a JPEG's SOF marker after other segments", () => {
    const app0 = [0xff, 0xe0, ...be16(16), ...new Array(14).fill(0)];
    const sof0 = [0xff, 0xc0, ...be16(17), 8, ...be16(630), ...be16(1200), 3, ...new Array(9).fill(0)];
    expect(imageDimensions(bytes([0xff, 0xd8], app0, sof0))).toEqual({ width: 1200, height: 630 });
  });

  it("reads WebP VP8X and VP8L headers", () => {
    const riff = (chunk: string, body: number[]) => bytes("RIFF", [0, 0, 0, 0], "WEBP", chunk, [0, 0, 0, 0], body);
    expect(
      imageDimensions(riff("VP8X", [0, 0, 0, 0, ...[1199 & 255, 1199 >> 8, 0], ...[629 & 255, 629 >> 8, 0]])),
    ).toEqual({ width: 1200, height: 630 });
    const bits = (1199 | (629 << 14)) >>> 0;
    expect(
      imageDimensions(riff("VP8L", [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255])),
    ).toEqual({ width: 1200, height: 630 });
  });

  it("answers null for a truncated or unknown header", () => {
    expect(imageDimensions(bytes([0xff, 0xd8, 0xff, 0xe0, 0, 2]))).toBeNull();
    expect(imageDimensions(bytes("not an image at all"))).toBeNull();
  });
});
