import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// `npm run dev` (root) starts the service with WEB_DEV_SERVER set, and the web listener on
// WEB_PORT forwards everything outside /api and /health to this dev server (hot reload).
export default defineConfig({
  plugins: [react()],
  // VITE_CACHE_DIR: where the dev server keeps its optimized deps (a test gives it a temp dir)
  ...(process.env.VITE_CACHE_DIR ? { cacheDir: process.env.VITE_CACHE_DIR } : {}),
  build: { manifest: true, outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  server: { host: '127.0.0.1', port: Number(process.env.VITE_PORT ?? 5173), strictPort: true, hmr: { clientPort: Number(process.env.WEB_PORT ?? 18080) } },
  test: {
    environment: 'jsdom',
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    // a shared 2-core machine: the first render of a file can take seconds
    testTimeout: 30_000,
  },
});
