// Public API of @toolnexus/dbos (being built).
export {};
