/**
 * The bytes of the text WebAssembly module (282 bytes, base64) that review/text-wasm.ts assembles: line
 * starts and flat bytes. Kept rather than assembled at each hook's start; test/unit/text-scan.test.ts fails,
 * naming the new value, when the two differ.
 */
export const TEXT_WASM =
  'AGFzbQEAAAABEwJgBH9/f38Bf2AFf39/f38Cf38CDwEDZW52Bm1lbW9yeQIAAQMDAgABBxICBHNjYW4AAAdmbGF0dGVuAAEK0AECYQECfwJAA0AgACABTw0BIAD9AAAAQQr9D/0j/WQhBAJAA0AgBEUNASAFQQJ0IAJqIAAgBGhqIANqQQFqNgIAIAVBAWohBSAEIARBAWtxIQQMAAsLIABBEGohAAwACwsgBQtsAQR/IAAgAWohASACIQUCQANAIAAgAU8NASAALQAAIgctAAAiCARAIAUgCDoAACAFQQFqIQUFIAdBCkYEQCAGQQJ0IANqIAUgAmsgBGo2AgAgBkEBaiEGCwsgAEEBaiEADAALCyAFIAJrIAYL';
