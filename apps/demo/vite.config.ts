import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The page `demo serve` serves: built offline into dist/web, no dev server needed.
export default defineConfig({
  root: "web",
  base: "/",
  plugins: [react()],
  build: { outDir: "../dist/web", emptyOutDir: true, sourcemap: false },
  logLevel: "warn",
});
