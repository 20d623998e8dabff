// Screen captures: decoding them, and the boxes they are cut to.

// A PNG (base64) decoded by the browser's own image decoder into an OffscreenCanvas, outside
// the document: its ImageData (width, height, RGBA data).
export async function decodePng(png) {
  const bytes = typeof Uint8Array.fromBase64 === 'function'
    ? Uint8Array.fromBase64(png) : Uint8Array.from(atob(png), (ch) => ch.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d', { willReadFrequently: true });
  canvas.drawImage(bitmap, 0, 0);
  const image = canvas.getImageData(0, 0, bitmap.width, bitmap.height);
  bitmap.close();
  return image;
}

export function union(boxes) {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
