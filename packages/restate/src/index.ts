// Public API of @toolnexus/restate (being built).
export {};
