/**
 * The bytes of the line-start WebAssembly module (151 bytes, base64) that review/newline-wasm.ts
 * assembles. Kept rather than assembled at each hook's start; test/unit/line-starts.test.ts fails, naming
 * the new value, when the two differ.
 */
export const NEWLINE_WASM =
  'AGFzbQEAAAABCQFgBH9/f38BfwIPAQNlbnYGbWVtb3J5AgABAwIBAAcIAQRzY2FuAAAKYwFhAQJ/AkADQCAAIAFPDQEgAP0AAABBCv0P/SP9ZCEEAkADQCAERQ0BIAVBAnQgAmogACAEaGogA2pBAWo2AgAgBUEBaiEFIAQgBEEBa3EhBAwACwsgAEEQaiEADAALCyAFCw==';
