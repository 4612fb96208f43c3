/**
 * Builds the dashboard into dist/ (index.html and hashed assets/), which the server serves at `/`.
 * Preact's JSX is compiled by esbuild directly: no Babel preset needed.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: true },
  server: { proxy: { '/v1': 'http://127.0.0.1:8787' } },
});
