import type { Command } from "../command.js";
import { answer } from "./answer.js";
import { cancel } from "./cancel.js";
import { prune } from "./prune.js";
import { retry } from "./retry.js";
import { runsFollow } from "./runs-follow.js";
import { runsList } from "./runs-list.js";
import { runsShow } from "./runs-show.js";

/** Every command, in the order `toolnexus --help` lists them. */
export const COMMANDS: readonly Command[] = [
  runsList,
  runsShow,
  runsFollow,
  answer,
  cancel,
  retry,
  prune,
];
