import { libraryConfig } from "../../tsup.shared.js";

// "use client": a Next.js server component (a layout) may then render ToolnexusProvider.
export default libraryConfig({ entry: ["src/index.ts"], banner: { js: '"use client";' } });
