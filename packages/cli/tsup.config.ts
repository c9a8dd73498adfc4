import { libraryConfig } from "../../tsup.shared.js";

export default [
  libraryConfig({ entry: ["src/index.ts"] }),
  // The `toolnexus` bin: ESM only, no types; the shebang is kept and the file made executable.
  libraryConfig({ entry: ["src/bin.ts"], format: ["esm"], dts: false, clean: false }),
];
