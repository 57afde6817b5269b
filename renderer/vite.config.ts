import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Absolute paths from this file's URL, so the build works from any working directory.
const here = (rel: string): string => decodeURIComponent(new URL(rel, import.meta.url).pathname);

// Loaded from file:// in Electron and from http:// in the browser: relative asset URLs.
export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [react()],
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
});
