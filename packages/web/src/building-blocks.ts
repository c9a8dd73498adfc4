// The handler's own checks, exported for the protocol handlers built on this package
// (@toolnexus/ag-ui, @toolnexus/ai-sdk): a body cap, an origin check and an answer's schema
// check then mean the same, and refuse the same way, whichever protocol a page speaks.
export { answerOf, checkAgainstSchema, schemaOf } from "./answer-body.js";
export { errorResponse, internalResponse, jsonResponse } from "./errors.js";
export { checkOrigin, readJson } from "./guard.js";
