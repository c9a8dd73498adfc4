import { fileURLToPath } from "node:url";
import { clusterSetup } from "./cluster-setup.js";

// One throwaway cluster for the run; this package's source built for the child processes of the
// cross-process tests.
export default clusterSetup(
  fileURLToPath(new URL("..", import.meta.url)),
  ["pg", "@toolnexus/core"],
  "tests",
);
