/**
 * Draws the plugin icon, .claude-plugin/icon.png (512×512 RGBA): a large magnifying glass whose lens
 * holds five coloured dots (the five reviewers) around a white check mark (the fixer). Pure node:
 * shapes are signed distance functions sampled 4×4 per pixel, and the PNG (IHDR, one zlib IDAT,
 * IEND, CRC-32) is encoded by hand.
 *
 *   npx tsx scripts/make-icon.ts [out.png]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const SIZE = 512;
const SAMPLES = 4;

type RGBA = readonly [number, number, number, number];
type Sdf = (x: number, y: number) => number;

const hex = (h: string, a = 255): RGBA => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16), a];
const BACKGROUND = hex('#1e2433');
const RIM = hex('#d7dce6');
const GRIP = hex('#5b6478');
const LENS = hex('#8fc8ff', 56);
const GLINT = hex('#ffffff', 110);
const WHITE = hex('#ffffff');
/** The five reviewers, one colour each. */
const REVIEWERS = [hex('#ff6b6b'), hex('#ff9f43'), hex('#3ddc84'), hex('#4fc3f7'), hex('#b388ff')];

// ── Shapes (negative inside) ────────────────────────────────────────────────────

const circle = (cx: number, cy: number, r: number): Sdf => (x, y) => Math.hypot(x - cx, y - cy) - r;

/** A capsule: the segment (ax, ay)–(bx, by) thickened by r. */
const capsule = (ax: number, ay: number, bx: number, by: number, r: number): Sdf => (x, y) => {
  const px = x - ax;
  const py = y - ay;
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - dx * t, py - dy * t) - r;
};

const roundedBox = (x0: number, y0: number, x1: number, y1: number, r: number): Sdf => (x, y) => {
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const qx = Math.abs(x - cx) - ((x1 - x0) / 2 - r);
  const qy = Math.abs(y - cy) - ((y1 - y0) / 2 - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
};

const union = (...s: Sdf[]): Sdf => (x, y) => Math.min(...s.map((f) => f(x, y)));
const intersect = (...s: Sdf[]): Sdf => (x, y) => Math.max(...s.map((f) => f(x, y)));
const subtract = (a: Sdf, b: Sdf): Sdf => (x, y) => Math.max(a(x, y), -b(x, y));
const ring = (cx: number, cy: number, r: number, width: number): Sdf => subtract(circle(cx, cy, r), circle(cx, cy, r - width));

/** The half-plane to the left of the ray from (cx, cy) at angle a (radians, y down): its exact distance. */
const leftOf = (cx: number, cy: number, a: number): Sdf => (x, y) => (x - cx) * Math.sin(a) - (y - cy) * Math.cos(a);

/** The arc of a ring between angles a0 and a1 (a1 − a0 < π). */
const arc = (cx: number, cy: number, r: number, width: number, a0: number, a1: number): Sdf =>
  intersect(ring(cx, cy, r, width), leftOf(cx, cy, a0), (x, y) => -leftOf(cx, cy, a1)(x, y));

// ── The scene, back to front ────────────────────────────────────────────────────

interface Layer {
  sdf: Sdf;
  color: RGBA;
}

/** The lens's centre and radii. */
const CX = 214;
const CY = 214;
const OUTER = 150;
const RIM_WIDTH = 28;
const DIAG = Math.SQRT1_2;
const along = (d: number): [number, number] => [CX + d * DIAG, CY + d * DIAG];

/** A reviewer: a round dot with a small highlight. */
function reviewer(cx: number, cy: number, r: number, color: RGBA): Layer[] {
  return [
    { sdf: circle(cx, cy, r), color },
    { sdf: circle(cx - r * 0.32, cy - r * 0.32, r * 0.26), color: hex('#ffffff', 90) },
  ];
}

/** Five reviewers on a pentagon around the lens's centre, the first at the top. */
const reviewers = REVIEWERS.flatMap((color, i) => {
  const a = -Math.PI / 2 + (i * 2 * Math.PI) / REVIEWERS.length;
  return reviewer(CX + 74 * Math.cos(a), CY + 74 * Math.sin(a), 25, color);
});

const SCENE: Layer[] = [
  { sdf: roundedBox(0, 0, SIZE, SIZE, 104), color: BACKGROUND },
  // The handle: a light neck, then a darker grip.
  { sdf: capsule(...along(OUTER - 10), ...along(OUTER + 46), 20), color: RIM },
  { sdf: capsule(...along(OUTER + 44), ...along(OUTER + 168), 30), color: GRIP },
  // The lens, its rim and a glint.
  { sdf: circle(CX, CY, OUTER - RIM_WIDTH / 2), color: LENS },
  { sdf: ring(CX, CY, OUTER, RIM_WIDTH), color: RIM },
  { sdf: arc(CX, CY, 112, 9, (205 * Math.PI) / 180, (250 * Math.PI) / 180), color: GLINT },
  // The reviewers, and the fixer's check mark among them.
  ...reviewers,
  { sdf: union(capsule(CX - 24, CY + 2, CX - 6, CY + 20, 8.5), capsule(CX - 6, CY + 20, CX + 26, CY - 18, 8.5)), color: WHITE },
];

// ── Rendering and PNG encoding ──────────────────────────────────────────────────

/** Premultiplied "over" compositing of the layers that cover the point (x, y). */
function shade(x: number, y: number, covers: (layer: Layer, index: number) => boolean): [number, number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  let a = 0;
  SCENE.forEach((layer, index) => {
    if (!covers(layer, index)) return;
    const la = layer.color[3] / 255;
    r = layer.color[0] * la + r * (1 - la);
    g = layer.color[1] * la + g * (1 - la);
    b = layer.color[2] * la + b * (1 - la);
    a = la + a * (1 - la);
  });
  return [r, g, b, a];
}

export function render(): Buffer {
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  for (let py = 0; py < SIZE; py++) {
    for (let px = 0; px < SIZE; px++) {
      // Away from every edge the pixel is one colour; only edge pixels are supersampled.
      const centre = SCENE.map((layer) => layer.sdf(px + 0.5, py + 0.5));
      let sum: [number, number, number, number];
      if (centre.every((d) => Math.abs(d) > 0.75)) {
        sum = shade(px + 0.5, py + 0.5, (_l, i) => centre[i]! <= 0);
      } else {
        sum = [0, 0, 0, 0];
        for (let sy = 0; sy < SAMPLES; sy++) {
          for (let sx = 0; sx < SAMPLES; sx++) {
            const x = px + (sx + 0.5) / SAMPLES;
            const y = py + (sy + 0.5) / SAMPLES;
            const c = shade(x, y, (layer) => layer.sdf(x, y) <= 0);
            for (let k = 0; k < 4; k++) sum[k]! += c[k]! / (SAMPLES * SAMPLES);
          }
        }
      }
      const [r, g, b, alpha] = sum;
      const i = (py * SIZE + px) * 4;
      rgba[i] = alpha > 0 ? Math.round(r / alpha) : 0;
      rgba[i + 1] = alpha > 0 ? Math.round(g / alpha) : 0;
      rgba[i + 2] = alpha > 0 ? Math.round(b / alpha) : 0;
      rgba[i + 3] = Math.round(alpha * 255);
    }
  }
  return rgba;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function encodePng(width: number, height: number, rgba: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering
  ihdr[12] = 0; // no interlace
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const ICON_PATH = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), '.claude-plugin', 'icon.png');

/** The icon's PNG bytes (deterministic: the same scene always encodes to the same file). */
export const makeIcon = (): Buffer => encodePng(SIZE, SIZE, render());

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.resolve(process.argv[2] ?? ICON_PATH);
  const png = makeIcon();
  fs.writeFileSync(out, png);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out) || out} (${SIZE}×${SIZE}, ${png.length} bytes)\n`);
}
