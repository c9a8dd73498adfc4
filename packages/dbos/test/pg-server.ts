import { fileURLToPath } from "node:url";
// The store's throwaway-cluster setup, shared rather than copied: one place knows how to start
// Debian's PostgreSQL as root, on a free port, with the chaos kit's watchdog behind it.
import { clusterSetup } from "../../store-postgres/test/cluster-setup.js";

// One throwaway cluster for the run; this package's source built for the DBOS application
// processes (plain Node, they cannot load TypeScript).
export default clusterSetup(
  fileURLToPath(new URL("..", import.meta.url)),
  ["@dbos-inc/dbos-sdk", "@toolnexus/core", "@toolnexus/client"],
  "dbos",
);
